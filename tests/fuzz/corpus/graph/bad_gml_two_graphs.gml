graph [ node [ id 1 ] ]
graph [ ]
