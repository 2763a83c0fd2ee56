select id, upid, graph_sample_ts, reachable, root_type, root_distance, object_data_id, heap_type, reference_set_id from heap_graph_object order by id;
select name, idx, value from stats where name like 'heap_graph%' and value != 0 order by name;
