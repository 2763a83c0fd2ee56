SELECT name, ts FROM slice ORDER BY ts;
