{
"traceEvents": [
{
"ph": "X",
"pid": 1,
"tid": 100,
"ts": 1,
"dur": 1000,
"name": "o0",
"args": {
"k": 0
}
},
{
"ph": "B",
"pid": 1,
"tid": 100,
"ts": 2,
"name": "n0",
"args": {
"j": 0
}
},
{
"ph": "X",
"pid": 1,
"tid": 101,
"ts": 2,
"dur": 1000,
"name": "o1",
"args": {
"k": 1
}
},
{
"ph": "B",
"pid": 1,
"tid": 101,
"ts": 3,
"name": "n1",
"args": {
"j": 1
}
},
{
"ph": "X",
"pid": 1,
"tid": 102,
"ts": 3,
"dur": 1000,
"name": "o2",
"args": {
"k": 2
}
},
{
"ph": "B",
"pid": 1,
"tid": 102,
"ts": 4,
"name": "n2",
"args": {
"j": 2
}
},
{
"ph": "X",
"pid": 1,
"tid": 103,
"ts": 4,
"dur": 1000,
"name": "o3",
"args": {
"k": 3
}
},
{
"ph": "B",
"pid": 1,
"tid": 103,
"ts": 5,
"name": "n3",
"args": {
"j": 3
}
},
{
"ph": "X",
"pid": 1,
"tid": 104,
"ts": 5,
"dur": 1000,
"name": "o4",
"args": {
"k": 4
}
},
{
"ph": "B",
"pid": 1,
"tid": 104,
"ts": 6,
"name": "n4",
"args": {
"j": 4
}
},
{
"ph": "X",
"pid": 1,
"tid": 105,
"ts": 6,
"dur": 1000,
"name": "o5",
"args": {
"k": 5
}
},
{
"ph": "B",
"pid": 1,
"tid": 105,
"ts": 7,
"name": "n5",
"args": {
"j": 5
}
},
{
"ph": "X",
"pid": 1,
"tid": 106,
"ts": 7,
"dur": 1000,
"name": "o6",
"args": {
"k": 6
}
},
{
"ph": "B",
"pid": 1,
"tid": 106,
"ts": 8,
"name": "n6",
"args": {
"j": 6
}
},
{
"ph": "X",
"pid": 1,
"tid": 107,
"ts": 8,
"dur": 1000,
"name": "o7",
"args": {
"k": 7
}
},
{
"ph": "B",
"pid": 1,
"tid": 107,
"ts": 9,
"name": "n7",
"args": {
"j": 7
}
},
{
"ph": "X",
"pid": 1,
"tid": 108,
"ts": 9,
"dur": 1000,
"name": "o8",
"args": {
"k": 8
}
},
{
"ph": "B",
"pid": 1,
"tid": 108,
"ts": 10,
"name": "n8",
"args": {
"j": 8
}
},
{
"ph": "X",
"pid": 1,
"tid": 109,
"ts": 10,
"dur": 1000,
"name": "o9",
"args": {
"k": 9
}
},
{
"ph": "B",
"pid": 1,
"tid": 109,
"ts": 11,
"name": "n9",
"args": {
"j": 9
}
},
{
"ph": "X",
"pid": 1,
"tid": 110,
"ts": 11,
"dur": 1000,
"name": "o10",
"args": {
"k": 10
}
},
{
"ph": "B",
"pid": 1,
"tid": 110,
"ts": 12,
"name": "n10",
"args": {
"j": 10
}
},
{
"ph": "X",
"pid": 1,
"tid": 111,
"ts": 12,
"dur": 1000,
"name": "o11",
"args": {
"k": 11
}
},
{
"ph": "B",
"pid": 1,
"tid": 111,
"ts": 13,
"name": "n11",
"args": {
"j": 11
}
}
]
}