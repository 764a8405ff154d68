graph [
 node [ id 3 ]
 node [
 id 3 ]
]
