"""Seeds of the `graph` target: GML files (Newman's karate and dolphins whole, football's two
repeated games cut out), edge lists and adjacency matrices (a corner of NIPS 234), plain and
gzip, and the cases of the graph-reader tests."""

import re

from .common import INTRO, gzip_member, read, seed

GRAPH_TEST = "tests/core/test_graph_files.cpp"
NEWMAN = "Newman's network data"


def football_repeats():
    """football_newman.gml's header, the nodes of its two games listed twice (3–84 and 14–99)
    and the edges among them, in the file's own layout."""
    text = read("graphs/football_newman.gml").decode("ascii")
    keep = {3, 84, 14, 99}
    nodes = re.findall(r"  node\n  \[\n    id (\d+)\n(?:    .*\n)*?  \]\n", text)
    blocks = re.findall(r"(  node\n  \[\n    id (\d+)\n(?:    .*\n)*?  \]\n)", text)
    edges = re.findall(r"(  edge\n  \[\n    source (\d+)\n    target (\d+)\n  \]\n)", text)
    assert len(nodes) == 115 and len(edges) == 615
    head = text[: text.index("  node\n")]
    out = head + "".join(b for b, i in blocks if int(i) in keep)
    out += "".join(e for e, s, t in edges if int(s) in keep and int(t) in keep) + "]\n"
    return out.encode("ascii")


def nips_corner(n):
    """The first n rows and columns of the NIPS 234 co-authorship matrix: still square, 0/1 and
    symmetric."""
    rows = read("graphs/nips234_coauthor_adjacency.csv").decode("ascii").split("\n")[:n]
    return "".join(",".join(r.split(",")[:n]) + "\n" for r in rows).encode("ascii")


def make_graph():
    t = "graph"
    INTRO[t] = (
        "One graph file per seed, GML, an edge list or an adjacency matrix, plain or gzip (the "
        "harness writes `input`, without a suffix, and reads it by its content and then in each "
        "of the three formats, with `readGraphFile`); what reads is made simple with "
        "`buildGraph` and 20 % of its node pairs held out with `splitGraph`.")
    data = "tests/data/graphs/"
    karate = read("graphs/karate_newman.gml")
    seed(t, "real_karate.gml", karate, "Zachary's karate club: 34 nodes without labels, 78 edges",
         data + "karate_newman.gml (" + NEWMAN + ")")
    seed(t, "real_karate.gml.gz", gzip_member(karate), "the same, gzip",
         data + "karate_newman.gml (" + NEWMAN + "), compressed")
    seed(t, "real_dolphins.gml", read("graphs/dolphins.gml"),
         "Lusseau's dolphins: 62 labelled nodes, 159 edges, written by igraph",
         data + "dolphins.gml (" + NEWMAN + ")")
    seed(t, "real_football_repeats.gml", football_repeats(),
         "football's header, the 4 teams of its two games listed twice, and their edges",
         data + "football_newman.gml (" + NEWMAN + "), cut")
    seed(t, "real_nips234_corner40.csv", nips_corner(40),
         "rows and columns 1–40 of the NIPS co-authorship adjacency matrix",
         data + "nips234_coauthor_adjacency.csv, cut")

    T = GRAPH_TEST + " "
    errors = T + "errors_data "
    cases = [
        # GML
        ("ok_gml_quirks.gml",
         b'# written by hand\nCreator "hand"\nVersion 1\ngraph\n[\n  comment "a string\nover two '
         b'lines, &amp; a \\ backslash"\n  directed 1\n  edge [ source -5 target 100000000000 value '
         b'2.5 ]\n  node [ id 100000000000 label "Big &quot;one&quot;" graphics [ x 1.0 y [ 2 ] ] ]\n'
         b"  node\n  [\n    id -5\n    label 42\n  ]\n  node [ id 7 ] # no label\n  edge [ source 7 "
         b"target 7 ]\n  edge [ target -5 source 100000000000 ]\n]\n",
         "comments, a string over two lines, ids beyond 32 bits, an edge before its nodes, nested "
         "lists, a value, directed 1", T + "gmlQuirks"),
        ("bad_gml_unknown_target.gml",
         b"graph [\n  node [ id 1 ]\n  node [ id 2 ]\n  edge [ source 1\n target 99 ]\n]\n",
         "an edge to a node that is not there", errors + "'gml: unknown target'"),
        ("bad_gml_id_twice.gml", b"graph [\n node [ id 3 ]\n node [\n id 3 ]\n]\n", "id 3 twice",
         errors + "'gml: id twice'"),
        ("bad_gml_never_closed.gml", b"graph [\n node [ id 1\n graphics [ x 1\n",
         "lists never closed", errors + "'gml: nested list never closed'"),
        ("bad_gml_string_never_closed.gml", b'graph [\n node [ id 1 label "abc\n ]\n]\n',
         "a string never closed", errors + "'gml: string never closed'"),
        ("bad_gml_stray_bracket.gml", b"]\ngraph [ ]\n", "a ']' that closes nothing",
         errors + "'gml: stray bracket'"),
        ("bad_gml_id_not_whole.gml", b"graph [\n node [ id 1.5 ]\n]\n", "id 1.5",
         errors + "'gml: id not whole'"),
        ("bad_gml_two_graphs.gml", b"graph [ node [ id 1 ] ]\ngraph [ ]\n", "two graphs",
         errors + "'gml: two graphs'"),
        ("bad_gml_directed_2.gml", b"graph [\n directed 2\n node [ id 1 ] ]\n", "directed 2",
         errors + "'gml: directed 2'"),
        ("edge_gml_no_edges.gml", b"graph [ node [ id 1 ] node [ id 2 ] ]\n",
         "two nodes and no edge", T + "kindRefusesEmptyGraphs"),
        ("edge_gml_deep.gml", b"graph [ node [ id 1 x " + b"[ " * 2000 + b"] " * 2000 + b"] ]\n",
         "a list nested 2,000 deep inside a node", "written for the fuzzers"),
        # Edge lists
        ("ok_edges_quirks.csv",
         b'\xef\xbb\xbfsource,target,weight\r\n# a comment\r\nalice,bob,1\r\n"Smith, J",alice,2.5\r\n'
         b"\r\nbob,carol,0\r\ncarol,\"Smith, J\",\r\n",
         "a BOM, CRLF, a header with weights 1, 2.5, 0 and none, quoted names", T + "edgeListQuirks"),
        ("ok_edges_ids.tsv", b"from\tto\n10\t2\n2\t33\n33\t10\n", "whole-number ids under from/to",
         T + "edgeListQuirks"),
        ("ok_edges_konect.txt", b"% sym unweighted\n% 2 3 3\n1  2 1 1199145600\n2 3 1 1199145601\n",
         "KONECT: '%' comments, runs of spaces, a weight and a time", T + "edgeListQuirks"),
        ("ok_edges_snap.txt", b"# Directed graph\n# Nodes: 3 Edges: 2\n# FromNodeId\tToNodeId\n0\t1\n1\t2\n",
         "SNAP: the columns named in a comment", T + "recognisedByContent_data 'SNAP'"),
        ("ok_edges_names.txt", b"bob alice\nalice carol\nalice alice\ncarol bob\n",
         "names throughout, no header, a self-loop and a repeat", T + "edgeListHeaders_data"),
        ("bad_edges_one_field.csv", b"source,target\na,b\nc\n", "a line of one field",
         errors + "'edges: one field'"),
        ("bad_edges_negative_weight.csv", b"a,b,-1\nb,c,1\n", "weight -1 on the first line",
         errors + "'edges: negative weight, first line'"),
        ("bad_edges_nan_weight.txt", b"source target weight\n\na b nan\n", "weight nan",
         errors + "'edges: NaN weight'"),
        ("bad_edges_open_quote.csv", b'source,target\n"a,b\n', "a quote never closed",
         errors + "'edges: open quote'"),
        # Adjacency matrices
        ("ok_adjacency_r.csv", b'"","a","b","c"\n"a",0,1,0\n"b",1,0,1\n"c",0,1,0\n',
         "R's write.csv: an empty corner, quoted names", T + "adjacencyQuirks"),
        ("ok_adjacency_directed.csv", b"0,2,0\n0,1,1\n1,0,0\n",
         "a weight, a diagonal entry, one-way links", T + "adjacencyQuirks"),
        ("ok_adjacency_tabs.tsv", b"x\ty\tz\n0\t1\t1\n1\t0\t0\n1\t0\t0\n", "TAB, a header",
         T + "adjacencyQuirks"),
        ("bad_adjacency_short_row.csv", b"0,1,0\n1,0\n0,1,0\n", "a row of 2 fields in 3 columns",
         errors + "'matrix: short row'"),
        ("bad_adjacency_too_many_rows.csv", b"0,1,1\n1,0,0\n1,0,0\n1,1,0\n", "4 rows of 3 columns",
         errors + "'matrix: too many rows'"),
        ("bad_adjacency_na.csv", b"0,1,0\n1,0,NA\n0,1,0\n", "an NA entry", errors + "'matrix: NA'"),
        ("bad_adjacency_row_name_differs.csv", b",a,b,c\na,0,1,0\nc,1,0,1\nb,0,1,0\n",
         "row names that do not match the header", errors + "'matrix: row name differs'"),
        ("edge_adjacency_zeros.csv", b"0,0,0\n0,0,0\n0,0,0\n", "no links at all",
         T + "kindRefusesEmptyGraphs"),
        ("edge_empty", b"", "an empty file", "written for the fuzzers"),
    ]
    for name, data_, what, source in cases:
        seed(t, name, data_, what, source)
