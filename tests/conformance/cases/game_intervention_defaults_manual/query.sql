select * from android_game_intervention_list
