select id, reference_set_id, owner_id, owned_id, field_name, field_type_name, deobfuscated_field_name from heap_graph_reference order by id;
