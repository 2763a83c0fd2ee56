select name, idx, severity, source, value from stats where name like 'game_intervention%' order by name
