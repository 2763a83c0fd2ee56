select name, count(*) as n, sum(dur) as total_dur, max(depth) as max_depth from slice group by name order by name;
