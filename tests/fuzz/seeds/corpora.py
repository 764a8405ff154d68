"""Seeds of the text-corpus targets: `ldac` (LDA-C counts and a vocabulary), `uci` (UCI
bag-of-words docword and vocabulary), `tar` (tar archives of posts, with the small
deterministic tar writer used to make them) and `text` (single raw documents)."""

from .common import DATA, INTRO, gunzip, gzip_member, read, seed, two_parts

CORPUS_TEST = "tests/core/test_corpus.cpp"  # the cases of all four targets

# --- ldac and uci -------------------------------------------------------------------------------


def make_ldac():
    t = "ldac"
    INTRO[t] = (
        "LDA-C counts (`N id:count …`, one document a line), optionally followed by `\\n%%\\n` "
        "and a vocabulary: the harness writes the part before the first `\\n%%\\n` (plus a "
        "newline) as `input.ldac` and the rest as `vocab.txt` beside it, which `readLdac` finds "
        "on its own; the vocabulary is also read alone. The error cases are read with the "
        "6-word vocabulary the test puts beside them.")
    six = b"a\nb\nc\nd\ne\nf\n"
    counts = b"3 5:1 0:1 2:2\n0\n\n2 1:4 0:1\n"
    seed(t, "ok_counts_vocab_crlf_trailing_spaces.ldac", two_parts(counts, b"a \r\nb\r\nc\r\nd\r\ne\r\nf\r\n"),
         "pairs in any order, a blank line, an empty document ('0'); the vocabulary with a "
         "trailing space and CRLF", CORPUS_TEST + " ldacReads")
    seed(t, "ok_counts_no_vocab.ldac", counts, "the same counts alone: words named by their ids",
         CORPUS_TEST + " ldacReads")
    seed(t, "ok_counts_gzip.ldac", gzip_member(counts), "the same counts, gzip",
         CORPUS_TEST + " ldacReads (gzipped)")
    seed(t, "ok_three_docs_vocab.ldac",
         two_parts(b"3 0:1 4:2 7:1\n2 1:3 7:2\n1 5:1\n",
                   b"orbit\nshuttle\nengine\noil\nlaunch\nwinter\ncafe\nnews\n"),
         "three documents over an 8-word vocabulary", "written for the fuzzers")
    seed(t, "ok_vocab_latin1.ldac", two_parts(b"1 0:2\n2 0:1 1:1\n", b"caf\xe9\nb\n\n"),
         "a Latin-1 vocabulary with trailing blank lines", CORPUS_TEST + " vocabularyErrors (Latin-1)")
    seed(t, "ok_find_vocab.ldac", two_parts(b"1 1:2\n", b"x\ny\n"), "one document, two words",
         CORPUS_TEST + " ldacFindsItsVocabulary")
    seed(t, "ok_crlf_tabs.ldac", two_parts(b"2 0:1\t1:2\r\n1  2:7 \r\n", b"p\nq\nr\n"),
         "CRLF lines, a TAB and double spaces between fields", "written for the fuzzers")
    errors = [
        ("bad_malformed_id", b"2 0:1 3x:2\n", "malformed id"),
        ("bad_no_colon", b"1 0:1\n1 5\n", "no colon"),
        ("bad_two_colons", b"1 5:1:2\n", "two colons"),
        ("bad_id_beyond_vocab", b"1 0:1\n2 1:1 6:1\n", "id beyond the vocabulary"),
        ("bad_n_does_not_match", b"3 0:1 1:1\n", "N does not match"),
        ("bad_n_not_a_number", b"x 0:1\n", "N not a number"),
        ("bad_zero_count", b"1 0:0\n", "zero count"),
        ("bad_negative_count", b"1 0:-1\n", "negative count"),
        ("bad_fractional_count", b"1 0:1.5\n", "fractional count"),
        ("bad_repeated_word", b"3 1:1 2:1 1:2\n", "repeated word"),
        ("bad_line_counted_with_blank_ones", b"1 0:1\n\n1 9:1\n", "lines counted with blank ones"),
        ("bad_empty_counts", b"", "empty file"),
    ]
    for name, text, test in errors:
        seed(t, name + ".ldac", two_parts(text, six), f"'{test}', with the 6-word vocabulary",
             f"{CORPUS_TEST} ldacErrors_data '{test}'")
    seed(t, "bad_vocab_blank_line.ldac", two_parts(b"1 0:1\n", b"a\n\nb\n\n\n"),
         "a vocabulary with a blank line before its last word", CORPUS_TEST + " vocabularyErrors")
    seed(t, "bad_vocab_empty.ldac", two_parts(b"1 0:1\n", b"\n \n"), "a vocabulary of blank lines",
         CORPUS_TEST + " vocabularyErrors")
    seed(t, "bad_count_too_large.ldac", b"1 0:16777217\n", "a count of 2^24 + 1 (beyond float's exact range)",
         "written for the fuzzers")
    seed(t, "bad_binary.ldac", b"1 0:1\x00\x00\n2 0:1 1:1\n", "NUL bytes on the first line",
         "written for the fuzzers")


def make_uci():
    t = "uci"
    INTRO[t] = (
        "UCI bag-of-words docword bytes (D, W and NNZ on three lines, then `docID wordID count` "
        "triples, 1-based), optionally followed by `\\n%%\\n` and a vocabulary: the harness "
        "writes `docword.input.txt` and, after the separator, `vocab.input.txt` beside it, which "
        "`readUciBagOfWords` finds on its own. The error cases are read with the 5-word "
        "vocabulary the test puts beside them.")
    fruit = b"apple\nbanana\ncherry\ndurian\nelder\n"
    header = b"3\n5\n4\n"
    shuffled = header + b"3 5 1\n1 3 1\n3 2 4\n\n1 1 2\n"
    seed(t, "ok_sorted_vocab.txt", two_parts(header + b"1 1 2\n1 3 1\n3 5 1\n3 2 4\n", fruit),
         "3 documents (the second empty), 5 words", CORPUS_TEST + " uciReads")
    seed(t, "ok_shuffled_vocab.txt", two_parts(shuffled, fruit), "triples in any order, a blank line",
         CORPUS_TEST + " uciReads (shuffled)")
    seed(t, "ok_no_vocab.txt", shuffled, "the same without a vocabulary: words named 1…W",
         CORPUS_TEST + " uciReads (no vocabulary)")
    seed(t, "ok_gzip_no_vocab.txt", gzip_member(header + b"1 1 2\n1 3 1\n3 5 1\n3 2 4\n"),
         "the docword gzip", CORPUS_TEST + " uciReads (gzipped)")
    seed(t, "ok_one_doc_two_words.txt", two_parts(b"1\n2\n1\n1 2 5\n", b"one\ntwo\n"),
         "one entry", CORPUS_TEST + " loadCorpusDispatch")
    seed(t, "ok_one_word.txt", two_parts(b"1\n1\n1\n1 1 1\n", b"w\n"), "a single word",
         CORPUS_TEST + " ldacFindsItsVocabulary (find3)")
    seed(t, "ok_crlf_latin1_vocab.txt",
         two_parts(b"2\r\n3\r\n3\r\n1 1 1\r\n2 2 2\r\n2 3 1\r\n", b"caf\xe9\r\nna\xefve\r\nz\xfcrich\r\n"),
         "CRLF lines; a Latin-1 vocabulary", "written for the fuzzers")
    seed(t, "ok_empty_documents.txt",
         two_parts(b"6\n4\n3\n2 1 1\n2 4 3\n6 2 2\n", b"alpha\nbeta\ngamma\ndelta\n"),
         "documents 1, 3, 4 and 5 without entries", "written for the fuzzers")
    seed(t, "ok_out_of_order_late.txt",
         two_parts(b"4\n3\n6\n1 1 1\n2 2 2\n3 3 3\n4 1 1\n2 3 5\n1 2 2\n", b"x\ny\nz\n"),
         "sorted rows first, then earlier documents again (the reader turns its rows back into "
         "triples)", "written for the fuzzers")
    five = b"a\nb\nc\nd\ne\n"
    errors = [
        ("bad_w_differs", b"3\n6\n1\n1 1 1\n", "W differs from the vocabulary"),
        ("bad_nnz_differs", b"3\n5\n5\n1 1 2\n1 3 1\n3 5 1\n3 2 4\n", "NNZ differs"),
        ("bad_document_beyond_d", b"3\n5\n1\n4 1 1\n", "document beyond D"),
        ("bad_word_0", b"3\n5\n1\n1 0 1\n", "word 0"),
        ("bad_malformed_word_id", b"3\n5\n1\n1 x 2\n", "malformed word id"),
        ("bad_zero_count", b"3\n5\n1\n1 2 0\n", "zero count"),
        ("bad_two_fields", b"3\n5\n1\n1 2\n", "two fields"),
        ("bad_repeated_entry", b"3\n5\n2\n1 1 2\n1 1 3\n", "repeated entry"),
        ("bad_repeated_entry_out_of_order", b"3\n5\n3\n2 1 2\n1 4 1\n2 1 3\n",
         "repeated entry, out of order"),
        ("bad_header_cut_short", b"3\n5\n", "header cut short"),
        ("bad_header_two_numbers", b"3 5\n1\n", "header with two numbers"),
    ]
    for name, text, test in errors:
        seed(t, name + ".txt", two_parts(text, five), f"'{test}', with the 5-word vocabulary",
             f"{CORPUS_TEST} uciErrors_data '{test}'")
    seed(t, "bad_empty.txt", b"", "an empty docword", "written for the fuzzers")
    seed(t, "bad_vocab_blank_line.txt", two_parts(b"1\n3\n1\n1 1 1\n", b"a\n\nb\nc\n"),
         "a vocabulary with a blank line inside", "written for the fuzzers (after vocabularyErrors)")
    seed(t, "bad_count_too_large.txt", b"1\n1\n1\n1 1 16777217\n", "a count of 2^24 + 1",
         "written for the fuzzers")
    seed(t, "bad_negative_document.txt", b"2\n2\n1\n-1 1 1\n", "document id -1", "written for the fuzzers")


# --- tar ----------------------------------------------------------------------------------------

TAR_MTIME = 733622400  # 1993-04-01, as the archives in tests/data


def tar_octal(v, width):
    return (("%0" + str(width - 1) + "o") % v).encode() + b"\0"


def tar_header(name, size, typeflag=b"0", fmt="ustar", linkname=b"", mode=0o644,
               size_field=None, signed_checksum=False):
    """One 512-byte header: fmt 'ustar' (POSIX, "ustar\\0" "00"), 'gnu' ("ustar  \\0") or 'v7'
    (no magic); uid/gid 0, owner root, mtime 1993-04-01."""
    h = bytearray(512)
    h[0:len(name)] = name
    h[100:108] = tar_octal(mode, 8)
    h[108:116] = tar_octal(0, 8)
    h[116:124] = tar_octal(0, 8)
    h[124:136] = size_field if size_field is not None else tar_octal(size, 12)
    h[136:148] = tar_octal(TAR_MTIME, 12)
    h[148:156] = b" " * 8
    h[156:157] = typeflag
    h[157:157 + len(linkname)] = linkname
    if fmt == "ustar":
        h[257:265] = b"ustar\x0000"
    elif fmt == "gnu":
        h[257:265] = b"ustar  \x00"
    if fmt in ("ustar", "gnu"):
        h[265:269] = b"root"
        h[297:301] = b"root"
        h[329:337] = tar_octal(0, 8)
        h[337:345] = tar_octal(0, 8)
    total = sum((b - 256 if b > 127 else b) for b in h) if signed_checksum else sum(h)
    h[148:156] = ("%06o" % (total & 0o777777 if not signed_checksum else total)).encode() + b"\0 "
    return bytes(h)


def tar_entry(name, data, **kw):
    pad = (-len(data)) % 512
    return tar_header(name, len(data), **kw) + data + b"\0" * pad


def tar_end():
    return b"\0" * 1024


def tar_trim(tar, end_blocks=2):
    """A tar without the zero padding tarfile adds up to its 10 KiB record: the entries and
    `end_blocks` zero blocks."""
    offset = 0
    while offset + 512 <= len(tar) and tar[offset:offset + 512] != b"\0" * 512:
        size = int(tar[offset + 124:offset + 136].strip(b" \0") or b"0", 8)
        offset += 512 + (size + 511) // 512 * 512
    return tar[:offset] + b"\0" * (512 * end_blocks)


def make_tar():
    t = "tar"
    INTRO[t] = (
        "A tar archive of text files per seed, gzip or plain (the harness writes `input.tar`; "
        "the reader recognises gzip by its magic bytes) and reads it with `readTextArchive` "
        "(minimum document frequency 1; e-mail headers stripped when the input's length is "
        "odd). The archives written here have fixed mtimes (1993-04-01), owner root and uid/gid "
        "0.")
    names = {"": "GNU format (the long path as a ././@LongLink entry)",
             "_ustar": "POSIX ustar (the long path split into prefix and name)",
             "_pax": "pax (the long path in an x record)"}
    for suffix, fmt in names.items():
        f = f"text/news_sample{suffix}.tar.gz"
        gz = read(f)
        seed(t, f"real_news_sample{suffix}.tar.gz", gz,
             f"the 8 sample posts and a hidden file, {fmt}, gzip (as committed)",
             f"tests/data/{f} (written for the tests)")
        seed(t, f"real_news_sample{suffix}.tar", tar_trim(gunzip(gz), 1),
             "the same, uncompressed; to stay within 16 KiB, the entries and one zero block (the "
             "second end-of-archive block and the record padding dropped)",
             f"tests/data/{f}, decompressed")
    plain = tar_trim(gunzip(read("text/news_sample.tar.gz")), 1)
    # The first regular file with data: cut 10 bytes into its data (test_corpus truncatedArchive).
    offset = 0
    while True:
        h = plain[offset:offset + 512]
        size = int(h[124:135], 8)
        if h[156:157] == b"0" and size > 0:
            cut = plain[: offset + 512 + 10]
            break
        offset += 512 + (size + 511) // 512 * 512
    seed(t, "bad_cut_inside_a_file.tar", cut, "the GNU archive cut 10 bytes into its first file's data",
         CORPUS_TEST + " truncatedArchive (cut1)")
    seed(t, "bad_cut_inside_a_header.tar", plain[: 512 + 100], "cut 100 bytes into the second header",
         CORPUS_TEST + " truncatedArchive (cut2)")
    seed(t, "bad_gzip_cut.tar.gz", read("text/news_sample.tar.gz")[:700], "the first 700 bytes of the gzip",
         CORPUS_TEST + " truncatedArchive (cut3)")
    bad = bytearray(plain)
    bad[512 + 20] = ord("Z")
    seed(t, "bad_header_checksum.tar", bytes(bad), "byte 20 of the second header changed: its checksum fails",
         CORPUS_TEST + " truncatedArchive (bad4)")
    seed(t, "bad_not_an_archive.tar.gz", b"just some text, not a tar archive\n" * 40, "text",
         CORPUS_TEST + " notAnArchive")

    post = (b"From: ada@example.org (Ada)\nSubject: Orbit and engine notes\n\nThe orbit of the "
            b"shuttle, the engine of the car.\n")
    latin = b"From: jean@example.fr\nSubject: Caf\xe9\n\nLe caf\xe9 \xe0 Z\xfcrich est tr\xe8s na\xefve.\n"
    # A second short post sharing words with `post`, so that the archives read with the
    # default minimum document frequency (2) too, as `svi info` reads them.
    second = tar_entry(b"x/2", b"The orbit, the engine and the shuttle.\n")
    seed(t, "ok_v7_no_magic.tar",
         tar_entry(b"posts/a", post, fmt="v7") + tar_entry(b"posts/b", latin, fmt="v7") + tar_end(),
         "old (v7) headers without the ustar magic; a Latin-1 post", "written for the fuzzers")
    seed(t, "ok_no_end_blocks.tar", tar_entry(b"a.txt", post) + tar_entry(b"b.txt", b"engine orbit oil\n"),
         "two files and no end-of-archive blocks (GNU tar accepts it)", "written for the fuzzers")
    seed(t, "ok_dirs_links_nested.tar",
         tar_entry(b"group/", b"", typeflag=b"5", mode=0o755) + tar_entry(b"group/sub/", b"", typeflag=b"5", mode=0o755)
         + tar_entry(b"group/sub/1", post) + tar_entry(b"group/link", b"", typeflag=b"2", linkname=b"sub/1")
         + tar_entry(b"group/hard", b"", typeflag=b"1", linkname=b"group/sub/1")
         + tar_entry(b"./group/2", latin, fmt="gnu") + tar_entry(b"group/fifo", b"", typeflag=b"6")
         + tar_entry(b"group/3", b"orbit launch orbit window\n", typeflag=b"7") + tar_end(),
         "folder, symbolic link, hard link and FIFO entries (skipped), a './' name, a contiguous "
         "file (type 7), GNU and ustar headers mixed", "written for the fuzzers")
    base256 = bytes([0x80]) + (len(post)).to_bytes(11, "big")
    seed(t, "ok_gnu_base256_size.tar",
         tar_entry(b"big/1", post, fmt="gnu", size_field=base256) + second + tar_end(),
         "a size field in GNU's base-256 form", "written for the fuzzers")
    longname = b"news/" + b"a.very.long.folder.name.beyond.the.hundred.bytes.of.the.name.field/" * 2 + b"1"
    rec_path = b"path=" + longname + b"\n"

    def pax_record(body):
        n = len(body) + 2
        while len(str(n)) + 1 + len(body) != n:
            n = len(str(n)) + 1 + len(body)
        return str(n).encode() + b" " + body

    records = pax_record(rec_path) + pax_record(b"size=" + str(len(post)).encode() + b"\n") + \
        pax_record(b"comment=written for the fuzzers\n")
    seed(t, "ok_pax_path_and_size.tar",
         tar_entry(b"pax_global_header", pax_record(b"comment=global\n"), typeflag=b"g")
         + tar_entry(b"PaxHeaders/1", records, typeflag=b"x")
         + tar_entry(b"news/short", post, size_field=tar_octal(999, 12)) + second + tar_end(),
         "a pax global header, then an x header giving a path over 100 bytes and the size "
         "(the ustar size field is wrong and must be ignored)", "written for the fuzzers")
    seed(t, "bad_pax_size.tar",
         tar_entry(b"PaxHeaders/1", pax_record(b"size=12abc\n"), typeflag=b"x")
         + tar_entry(b"x/1", post) + tar_end(), "an x header with size '12abc'", "written for the fuzzers")
    seed(t, "ok_gnu_longlink.tar",
         tar_entry(b"././@LongLink", longname + b"\0", typeflag=b"L", fmt="gnu")
         + tar_entry(longname[:100], post, fmt="gnu") + second + tar_end(),
         "a GNU ././@LongLink entry naming the next file", "written for the fuzzers")
    seed(t, "ok_signed_checksum.tar",
         tar_entry("news/caf\u00e9".encode("latin-1"), post, signed_checksum=True) + second + tar_end(),
         "a name with a byte above 127 and the header checksum summed over signed chars (old "
         "writers)", "written for the fuzzers")
    seed(t, "bad_size_not_a_number.tar", tar_entry(b"x/1", b"", size_field=b"0000000012x\0") + post + tar_end(),
         "a size field '0000000012x'", "written for the fuzzers")
    seed(t, "bad_file_with_nul_bytes.tar",
         tar_entry(b"docs/a", post) + tar_entry(b"docs/image.txt", b"PNG\0\0data") + tar_end(),
         "a file holding NUL bytes", "written for the fuzzers (after textFiles)")
    seed(t, "edge_empty_archive.tar", tar_end(), "two zero blocks: no files", "written for the fuzzers")
    seed(t, "edge_only_hidden_files.tar",
         tar_entry(b".hidden/a", post) + tar_entry(b"dir/.b", post) + tar_end(),
         "files only in a hidden folder or hidden themselves (skipped): no documents",
         "written for the fuzzers")
    seed(t, "edge_only_stop_words.tar", tar_entry(b"s/1", b"the and of 1999 it is\n") + tar_end(),
         "one file of stop words and numbers: no words remain", "written for the fuzzers (after textFiles)")
    archive = tar_entry(b"a/1", post) + tar_entry(b"a/2", latin) + tar_end()
    seed(t, "ok_two_gzip_members.tar.gz", gzip_member(archive[:1024]) + gzip_member(archive[1024:]),
         "a tar split across two gzip members", "written for the fuzzers")


# --- text ---------------------------------------------------------------------------------------


def make_text():
    t = "text"
    INTRO[t] = (
        "One raw text document per seed (the harness writes `input.txt` and reads it with "
        "`readTextFiles`; headers stripped when the length is odd, the subject kept when the "
        "length is 1 modulo 3).")
    root = DATA / "text" / "news_sample"
    for p in sorted(root.rglob("*")):
        if p.is_file():
            rel = p.relative_to(root).as_posix()
            name = "real_" + rel.replace("/", "_").replace(".hidden", "hidden").replace(
                "comp.graphics.a.very.long.newsgroup.name.to.test.long.paths.in.tar.archives.of.news",
                "comp.graphics.long")
            seed(t, name + ".txt", p.read_bytes(), "a sample post: " + rel,
                 f"tests/data/text/news_sample/{rel} (written for the tests)")
    cases = [
        ("edge_only_headers.txt", b"From: x@example.com\nSubject: Hello there\n",
         "headers and no body", CORPUS_TEST + " headers_data 'only headers'"),
        ("edge_no_blank_line_after_headers.txt",
         b"From: x@example.com\nSubject: Engines\nThe body starts at once, engine oil.\n",
         "a header block not ended by a blank line", "written for the fuzzers"),
        ("edge_crlf_folded_subject.txt",
         b"Subject: Long\r\n  continued title\r\nX-Note: a\r\n\r\nbody words\r\n",
         "CRLF, a folded subject", CORPUS_TEST + " headers_data 'CRLF and a folded subject'"),
        ("edge_not_a_header_block.txt", b"Notes: this first line\nis followed by text\n\nmore text\n",
         "a first line that looks like a header", CORPUS_TEST + " headers_data 'not a header block'"),
        ("edge_header_name_with_space.txt", b"Dear reader: hello\n\nworld\n",
         "'Name: value' with a space in the name", CORPUS_TEST + " headers_data 'a header name has no spaces'"),
        ("edge_invalid_utf8.txt", b"caf\xc3 na\xff\xfeve \xe2\x82 broken \xed\xa0\x80 surrogate \xf8\x88\x80\x80\x80\n",
         "invalid UTF-8 (a cut sequence, 0xFF, a surrogate, a 5-byte form)", "written for the fuzzers"),
        ("edge_latin1_ending_in_utf8_lead.txt", b"r\xe9sum\xe9",
         "Latin-1 whose last byte starts a UTF-8 sequence", CORPUS_TEST + " tokenize_data 'Latin-1 ending inside a UTF-8 sequence'"),
        ("edge_nul_bytes.txt", b"PNG\x00\x00data", "NUL bytes (binary)", CORPUS_TEST + " textFiles"),
        ("edge_long_word.txt", b"start " + b"a" * 3000 + b" " + b"\xc3\xa9" * 1000 + b" end\n",
         "a word of 3000 letters and one of 1000 'é'", "written for the fuzzers"),
        ("edge_bom_capitals_accents.txt", b"\xef\xbb\xbf\xc3\x89COLE Stra\xc3\x9fe NASA Gr\xc3\x9c\xc3\x9fE",
         "a BOM, capitals and accents", CORPUS_TEST + " tokenize_data"),
        ("edge_combining_accent.txt", b"e\xcc\x81cole and e\xcc\x81cole", "a combining accent (NFC)",
         CORPUS_TEST + " tokenize_data 'combining accent composed'"),
        ("edge_apostrophes.txt",
         b"don't won\xe2\x80\x99t government's O'Brien's rock'n'roll 'quoted' it's",
         "apostrophes", CORPUS_TEST + " tokenize_data 'apostrophes'"),
        ("edge_other_scripts.txt", b"\xe6\x9d\xb1\xe4\xba\xac \xd0\x9c\xd0\xbe\xd1\x81\xd0\xba\xd0\xb2\xd0\xb0",
         "CJK and Cyrillic", CORPUS_TEST + " tokenize_data 'other scripts'"),
        ("edge_numbers_punctuation.txt", b"In 1999, 3.5% of x11-users said: \"hello!!\" (42)",
         "numbers and punctuation", CORPUS_TEST + " tokenize_data 'numbers and punctuation'"),
        ("edge_only_stop_words.txt", b"And the of it is was; WE'RE THEY'D", "only stop words",
         CORPUS_TEST + " tokenize_data 'only stop words'"),
    ]
    for name, data, what, source in cases:
        seed(t, name, data, what, source)
