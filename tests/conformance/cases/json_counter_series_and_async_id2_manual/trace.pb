{"traceEvents":[
{"ph":"C","pid":1,"tid":1,"ts":9,"name":"k","id2":{"global":"7"},"args":{"v":1}},
{"ph":"C","pid":1,"tid":1,"ts":9,"name":"k","id2":{"local":"8"},"args":{"v":1}},
{"ph":"C","pid":1,"tid":1,"ts":9,"name":"k","id":"","args":{"v":1}},
{"ph":"C","pid":1,"tid":1,"ts":9,"name":"k","args":[1]},
{"ph":"C","pid":1,"tid":1,"ts":9,"name":"k","args":{"w":true, "x":null, "y":" 5", "z":"5 "}},
{"ph":"R","pid":1,"tid":1,"ts":10,"name":"r"},
{"ph":"i","pid":1,"tid":1,"ts":11,"name":"sn","s":5},
{"ph":"b","pid":1,"tid":1,"ts":12,"cat":"c","id2":{"local":"0x1","global":"0x2"},"name":"LG"},
{"ph":"b","pid":1,"tid":1,"ts":13,"cat":"c","id":-5,"name":"NEG"},
{"ph":"b","pid":1,"tid":1,"ts":14,"cat":"c","id":"","name":"EMPTY"},
{"ph":"b","pid":1,"tid":1,"ts":15,"cat":"c","id2":{},"name":"EMPTY2"},
{"ph":"n","pid":1,"tid":1,"ts":16,"cat":"c","id2":{"local":5},"name":"LN"}
]}
