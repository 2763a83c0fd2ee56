select id, name, deobfuscated_name, location, superclass_id, classloader_id, kind from heap_graph_class order by id;
