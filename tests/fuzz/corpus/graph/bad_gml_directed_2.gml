graph [
 directed 2
 node [ id 1 ] ]
