select id, name, mapping, rel_pc, symbol_set_id, deobfuscated_name, type from stack_profile_frame order by name, id, id, name, mapping, rel_pc, symbol_set_id, deobfuscated_name, type;
