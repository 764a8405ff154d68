"""Seeds of the `table` target: delimited text tables (CSV, TSV, ';' with decimal commas), plain
and gzip, cut from tests/data or copied from the table-reader tests, and damaged gzip files."""

from .common import INTRO, gunzip, gzip_member, read, seed

TABLE_TEST = "tests/core/test_table_file.cpp"


def make_table():
    t = "table"
    INTRO[t] = (
        "One delimited text file per seed, plain or gzip (the harness writes `input.csv`; the "
        "reader recognises gzip by its magic bytes). Each is read as it is and transposed, and "
        "inspected as `svi info` does. The gzip files are written here (fixed header, mtime 0).")
    levine = read("levine32_H1_sub200.csv").split(b"\n")
    lev = "tests/data/levine32_H1_sub200.csv (Levine et al. 2015, FlowRepository FR-FCM-ZZPH, via HDCytoData)"
    seed(t, "real_levine32_head10.csv", b"\n".join(levine[:11]) + b"\n",
         "CyTOF cells: the header and the first 10 of 200 rows, 39 columns", lev)
    seed(t, "real_levine32_head5.tsv", b"\n".join(l.replace(b",", b"\t") for l in levine[:6]) + b"\n",
         "the header and 5 rows with TAB between the fields", lev + ", commas made TABs")
    semi = [levine[0].replace(b",", b";")]
    for l in levine[1:6]:
        semi.append(b";".join(c.replace(b".", b",") for c in l.split(b",")))
    seed(t, "real_levine32_head5_semicolon_decimal_comma.csv", b"\r\n".join(semi) + b"\r\n",
         "the header and 5 rows as a European spreadsheet writes them: ';' between fields, "
         "decimal commas, CRLF", lev + ", rewritten")
    allx = gunzip(read("ALL_exprs_head50.csv.gz")).split(b"\n")
    head5 = b"\n".join(allx[:6]) + b"\n"
    src = ("tests/data/ALL_exprs_head50.csv.gz (Chiaretti et al. 2004, Bioconductor package ALL, "
           "Artistic-2.0)")
    seed(t, "real_ALL_exprs_head5.csv.gz", gzip_member(head5),
         "expression matrix in R's write.csv layout (quoted probe ids, empty corner cell): the "
         "header and the first 5 of 50 rows × 128 samples, gzip", src + ", decompressed, cut, recompressed")
    seed(t, "real_ALL_exprs_head5.csv", head5, "the same, plain", src + ", decompressed and cut")

    T = TABLE_TEST + " "
    cases = [
        ("ok_known_values.csv", b"CD3,CD4,CD8\n1,2,3\n4.5,-6e-1,+7\n", "3 columns, signs and exponents",
         T + "knownValues_data 'csv'"),
        ("ok_semicolons.csv", b"CD3;CD4;CD8\n1;2;3\n4.5;-6e-1;+7\n", "';' between the fields",
         T + "knownValues_data 'csv with semicolons'"),
        ("ok_spaces_around_fields.csv", b"CD3 , CD4,CD8 \n 1, 2 ,3\n4.5 ,-6e-1,  +7\n", "spaces around fields",
         T + "knownValues_data 'spaces around fields'"),
        ("ok_no_final_newline.csv", b"CD3,CD4,CD8\n1,2,3\n4.5,-6e-1,+7", "no newline at the end",
         T + "knownValues_data 'no final newline'"),
        ("ok_rownames_empty_corner.csv", b",s1,s2\n10,1,2\n11,3,4\n", "an empty corner cell: row names",
         T + "rowNames_data 'empty corner cell'"),
        ("ok_rownames_words.csv", b"gene,s1,s2\nCD4,1,2\nCD8,3,4\n", "words in the first column: row names",
         T + "rowNames_data 'words in the first column'"),
        ("ok_r_write_table_short_header.csv", b's1,s2\n"a",1,2\n"b",3,4\n',
         "R write.table layout: the header one cell shorter, quoted row names",
         T + "rowNames_data 'R write.table: header without the row-name cell'"),
        ("ok_numeric_ids.csv", b"id,x\n10,1\n11,2\n", "a first column of numbers: values, not names",
         T + "rowNames_data 'numeric ids are values by default'"),
        ("ok_quoted_fields.csv",
         b'"","CD4, Nd145","say ""hi""","two\nlines"\n"cell, one","1.5",2,3\n5" floppy,4, "5" ,6\n',
         "quoted fields with commas, \"\" escapes and a line break; a quote inside an unquoted name",
         T + "quotedFields"),
        ("ok_crlf_bom.csv", b"\xef\xbb\xbfTime,CD4\r\n1,2\r\n3,4\r\n\r\n", "a UTF-8 BOM and CRLF lines",
         T + "crlfAndBom"),
        ("ok_comments_blank_lines.csv",
         b"# exported by a cytometer\n\n# channels: 2\na,b\n1,2\n\n3,4\n\n   \n",
         "comment lines and blank lines", T + "commentsAndBlankLines"),
        ("ok_missing_values.csv", b'a,b,c,d\nNA,NaN,nan,\n1,"",-nan,NAN\n2, NA ,3,4\n',
         "NA, NaN, nan, -nan and empty cells", T + "missingValues"),
        ("ok_trailing_delimiter.csv", b"a,b,c,\n1,2,3,\n4,5,6,\n", "every line ends with a delimiter",
         T + "trailingDelimiter"),
        ("ok_trailing_delimiter_then_value.csv", b"a,b,c,\n1,2,3,\n4,5,6,7\n",
         "an unnamed last column that holds a value", T + "trailingDelimiter"),
        ("ok_decimal_comma_semicolons.csv", b"a;b\n1,5;-2,25\n3;4e2\n", "decimal commas with ';' between fields",
         T + "decimalCommaWithSemicolons"),
        ("ok_genes_by_samples.csv", b",s1,s2,s3\ng1,1,2,3\ng2,4,5,6\n", "genes × samples (read transposed too)",
         T + "transpose"),
        ("bad_word_in_tsv.tsv", b"gene\tA\tB\tC\np1\t1\t2\t3\np2\t4\tx\t6\n\n",
         "TSV whose shape inspects without complaint but one value is a word", T + "inspect"),
        ("bad_value_after_last_column.csv", b"a,b,c\n1,2,3,\n4,5,6,7\n",
         "a value where the line before has its trailing delimiter", T + "trailingDelimiter"),
        ("bad_short_line.csv", b"a,b,c\n1,2,3\n4,5\n6,7,8\n", "a line of 2 fields under a header of 3",
         T + "errors_data 'short line'"),
        ("bad_long_line.csv", b"a,b,c\n1,2,3\n4,5,6,7,8\n", "a line of 5 fields", T + "errors_data 'long line'"),
        ("bad_first_data_line_too_long.csv", b"a,b,c\n1,2,3,4,5\n", "the first data line too long",
         T + "errors_data 'first data line too long'"),
        ("bad_word_in_number_column.csv", b"Time,DNA1,CD4\n1,2,3\n4,5,6\n7,8,9\n1,2,abc\n", "'abc' in a column of numbers",
         T + "errors_data 'word in a number column'"),
        ("bad_number_with_space.csv", b",CD3,CD4\nc1,1,2\nc2,3,4 5\n", "'4 5'",
         T + "errors_data 'column numbers count the row-name column'"),
        ("bad_inf.csv", b"a,b\n1,2\n3,Inf\n", "Inf", T + "errors_data 'Inf'"),
        ("bad_header_only.csv", b"a,b,c\r\n\r\n\n", "a header and blank lines", T + "errors_data 'header and blank lines'"),
        ("bad_beyond_float.csv", b"a,b\n1,1e39\n", "1e39", T + "errors_data 'beyond float'"),
        ("bad_quote_not_closed.csv", b'a,b\n1,2\n3,"4\n5,6\n', "a quote not closed", T + "errors_data 'quote not closed'"),
        ("bad_text_after_closing_quote.csv", b'a,b\n1,"2"x\n', "text after a closing quote",
         T + "errors_data 'text after a closing quote'"),
        ("bad_utf16.csv", b"\xff\xfea\x00,\x00b\x00\n\x00", "UTF-16 with its BOM", T + "errors_data 'UTF-16'"),
        ("bad_binary_zip.csv", b"PK\x03\x04\x00\x00\x14\x00", "the start of a ZIP (a spreadsheet)", T + "errors_data 'binary'"),
        ("bad_only_row_names.csv", b"gene\ng1\ng2\n", "a column of names and no values",
         T + "errors_data 'only row names'"),
    ]
    for name, text, what, source in cases:
        seed(t, name, text, what, source)
    # gzip: two members, cut short, garbage after the magic, damaged in the middle.
    text = b",a,b,c\n" + b"".join(b"r%d,%s,NA,%d\n" % (i, repr(round(i * 0.37, 2)).encode(), -i)
                                   for i in range(40))
    half = text.index(b"\n", len(text) // 2) + 1
    seed(t, "ok_gzip_two_members.csv.gz", gzip_member(text[:half]) + gzip_member(text[half:]),
         "40 rows with row names and an NA column, as two gzip members (`cat a.gz b.gz`)",
         TABLE_TEST + " gzipReadsLikePlain (two members)")
    body = b"a,b\n" + b"".join(b"%d,%d\n" % (i, 3 * i) for i in range(400))
    packed = gzip_member(body)
    seed(t, "bad_gzip_cut_short.csv.gz", packed[: len(packed) // 2],
         "the first half of a gzip file", TABLE_TEST + " corruptGzip (cut short)")
    garbage = packed[:2] + bytes(((i * 7919 + 13) & 0xFF) for i in range(512))
    seed(t, "bad_gzip_garbage.csv.gz", garbage, "the gzip magic, then garbage",
         TABLE_TEST + " corruptGzip (garbage), 512 bytes instead of 4096")
    damaged = bytearray(packed)
    for i in range(len(damaged) // 3, len(damaged) // 3 + 64):
        damaged[i] ^= 0xFF
    seed(t, "bad_gzip_damaged.csv.gz", bytes(damaged), "64 bytes inverted in the middle",
         TABLE_TEST + " corruptGzip (damaged)")
