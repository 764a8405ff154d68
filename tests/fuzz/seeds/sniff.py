"""Seeds of the `sniff` target: files of every kind svi reads, good and broken, taken from the
other targets' seeds (their main file, for the two-file ones), and two written here. The
harness names the input without a suffix, so only the content decides."""

from .common import INTRO, SEP, TARGETS, seed

SNIFF_TEST = "tests/core/test_sniff.cpp"

# target -> the seeds of it taken, by name: a spread of formats and of ways to be broken.
PICKS = {
    "fcs": ("real_krieg_NR4_12_events.fcs", "ok_fcs20_without_tot.fcs", "bad_header_cut_at_40.fcs",
            "bad_corrupted.fcs"),
    "table": ("real_ALL_exprs_head5.csv.gz", "real_levine32_head5.tsv",
              "real_levine32_head5_semicolon_decimal_comma.csv", "ok_r_write_table_short_header.csv",
              "bad_gzip_damaged.csv.gz", "bad_utf16.csv", "bad_binary_zip.csv"),
    "ldac": ("ok_counts_gzip.ldac", "ok_crlf_tabs.ldac", "bad_n_does_not_match.ldac"),
    "uci": ("ok_gzip_no_vocab.txt", "ok_out_of_order_late.txt", "bad_header_cut_short.txt"),
    "tar": ("real_news_sample_ustar.tar", "real_news_sample.tar.gz", "ok_v7_no_magic.tar",
            "ok_gnu_base256_size.tar", "bad_file_with_nul_bytes.tar"),
    "text": ("real_train_sci.space_1001.txt", "edge_nul_bytes.txt", "edge_invalid_utf8.txt"),
    "ratings_tab": ("real_u_data.txt", "ok_bom.txt"),
    "ratings_dat": ("real_ratings_dat.txt",),
    "ratings_csv": ("real_ratings_csv.txt", "ok_no_header.txt"),
    "image": ("crop_9x9_grey.png", "crop_16x12_grey.jpg", "crop_9x9_grey8.bmp", "crop_9x9_ascii.pgm",
              "crop_16x12_grey_le.tiff", "bad_truncated.jpg"),
}


def make_sniff():
    t = "sniff"
    INTRO[t] = (
        "One file of any kind per seed (the harness writes `input`, without a suffix, recognises "
        "it with `recogniseFile` and reads it with the loader of the kind found): seeds of the "
        "other targets, the main file of the two-file ones, and two written here.")
    for target, names in PICKS.items():
        seeds = {name: (data, what) for name, data, what, _ in TARGETS[target]}
        for name in names:
            data, what = seeds[name]
            at = data.find(SEP)
            if at >= 0:
                data = data[: at + 1]
            seed(t, f"{target}_{name}", data, what, f"the `{target}` seed `{name}`")
    seed(t, "edge_empty", b"", "an empty file (Unknown)", "written for the fuzzers")
    seed(t, "edge_zeros", b"0\n0\n", "one column of zeros, or LDA-C documents without words",
         SNIFF_TEST + " tiesTheNameBreaks_data 'zeros'")
