{"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":1,"pid":1,"tid":1}]}
