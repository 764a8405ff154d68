graph [
 node [ id 1
 graphics [ x 1
