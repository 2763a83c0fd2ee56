select t.id, t.name, t.type, t.dimension_arg_set_id d, (select group_concat(key||'='||display_value, ' ') from args a where a.arg_set_id=t.dimension_arg_set_id) dims from track t order by id;
