# written by hand
Creator "hand"
Version 1
graph
[
  comment "a string
over two lines, &amp; a \ backslash"
  directed 1
  edge [ source -5 target 100000000000 value 2.5 ]
  node [ id 100000000000 label "Big &quot;one&quot;" graphics [ x 1.0 y [ 2 ] ] ]
  node
  [
    id -5
    label 42
  ]
  node [ id 7 ] # no label
  edge [ source 7 target 7 ]
  edge [ target -5 source 100000000000 ]
]
