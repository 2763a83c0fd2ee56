select name, idx, severity, source, value, key from stats where name like 'game_intervention%' order by name
