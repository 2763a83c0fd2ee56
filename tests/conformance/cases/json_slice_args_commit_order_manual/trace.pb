{
"traceEvents": [
{
"ph": "X",
"pid": 1,
"tid": 1,
"ts": 1,
"dur": 10,
"name": "x",
"args": {
"a": 1
}
},
{
"ph": "i",
"pid": 2,
"tid": 2,
"ts": 2,
"s": "p",
"name": "p1",
"args": {
"b": 1
}
},
{
"ph": "i",
"pid": 3,
"tid": 3,
"ts": 3,
"s": "p",
"name": "p2",
"args": {
"c": 1
}
},
{
"ph": "B",
"pid": 4,
"tid": 4,
"ts": 4,
"name": "bb",
"args": {
"d": 1
}
},
{
"ph": "i",
"pid": 5,
"tid": 5,
"ts": 5,
"s": "p",
"name": "p3"
},
{
"ph": "E",
"pid": 4,
"tid": 4,
"ts": 6,
"args": {
"e": 1
}
},
{
"ph": "i",
"pid": 6,
"tid": 6,
"ts": 7,
"s": "p",
"name": "p4"
},
{
"ph": "b",
"pid": 6,
"tid": 6,
"ts": 7,
"cat": "c",
"id": 1,
"name": "as",
"args": {
"f": 1
}
},
{
"ph": "i",
"pid": 7,
"tid": 7,
"ts": 8,
"s": "g",
"name": "g1",
"args": {
"g": 1
}
},
{
"ph": "e",
"pid": 6,
"tid": 6,
"ts": 9,
"cat": "c",
"id": 1,
"name": "as",
"args": {
"h": 1
}
},
{
"ph": "i",
"pid": 8,
"tid": 8,
"ts": 12,
"s": "p",
"name": "p5"
},
{
"ph": "i",
"pid": 3,
"tid": 3,
"ts": 13,
"s": "p",
"name": "p2b"
},
{
"ph": "i",
"pid": 2,
"tid": 2,
"ts": 14,
"s": "p",
"name": "p1b"
},
{
"ph": "i",
"pid": 1,
"tid": 1,
"ts": 15,
"name": "after_x"
},
{
"ph": "i",
"pid": 7,
"tid": 7,
"ts": 16,
"s": "g",
"name": "g2"
}
]
}