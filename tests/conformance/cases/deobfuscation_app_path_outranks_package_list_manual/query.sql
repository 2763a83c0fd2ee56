SELECT name, deobfuscated_name FROM stack_profile_frame ORDER BY 1,2
