"""The seed-corpus generators of the fuzz targets, run by tests/fuzz/make_seeds.py.

common      the seed registry, paths, gzip writer, output and README tables
fcs         fcs
tables      table
corpora     ldac, uci, tar, text
ratings     ratings_tab, ratings_dat, ratings_csv
images      image (and the PNG/PGM/PPM/BMP/TIFF/GIF/JPEG writers)
json_files  session, run_config
graphs      graph
sniff       sniff (seeds of the others, any kind of file)
"""
