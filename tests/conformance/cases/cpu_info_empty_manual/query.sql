SELECT name, value FROM stats WHERE name GLOB 'cpu_info_*' ORDER BY name;
