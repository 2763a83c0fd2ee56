{"traceEvents":[
{"ph":"X","name":"s1","ts":1,"dur":1,"pid":1,"tid":1,"args":{"a":1,"b":"x"}},
{"ph":"X","name":"s2","ts":3,"dur":1,"pid":1,"tid":1,"args":{"a":1,"b":"x"}},
{"ph":"X","name":"s3","ts":5,"dur":1,"pid":1,"tid":1,"args":{"b":"x","a":1}},
{"ph":"i","name":"i1","ts":7,"pid":1,"tid":1,"s":"t","args":{"a":1,"b":"x"}},
{"ph":"X","name":"s4","ts":9,"dur":1,"pid":1,"tid":1,"args":{"a":2}},
{"ph":"X","name":"s5","ts":11,"dur":1,"pid":1,"tid":1,"args":{"a":1}}
]}
