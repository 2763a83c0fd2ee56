SELECT key, int_value, value_type FROM args WHERE key LIKE 'legacy%' ORDER BY key;
