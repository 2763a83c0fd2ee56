select id, upid, graph_sample_ts, self_size, native_size, reference_set_id, reachable, heap_type, type_id, root_type from heap_graph_object order by id;
select id, name, kind from heap_graph_class order by id;
select id, reference_set_id, owner_id, owned_id, field_name from heap_graph_reference order by id;
select name, idx, value from stats where name like 'heap_graph%' and value != 0 order by name;
