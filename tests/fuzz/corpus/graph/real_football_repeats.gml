Creator "Mark Newman on Sat Jul 22 05:32:16 2006"
graph
[
  directed 0
  node
  [
    id 3
    label "KansasState"
    value 3
  ]
  node
  [
    id 14
    label "WesternMichigan"
    value 6
  ]
  node
  [
    id 84
    label "Oklahoma"
    value 3
  ]
  node
  [
    id 99
    label "Marshall"
    value 6
  ]
  edge
  [
    source 84
    target 3
  ]
  edge
  [
    source 84
    target 3
  ]
  edge
  [
    source 99
    target 14
  ]
  edge
  [
    source 99
    target 14
  ]
]
