"""Seeds of the ratings targets: `ratings_tab` (MovieLens 100K `u.data`/`u.item`), `ratings_dat`
(1M `ratings.dat`/`movies.dat`) and `ratings_csv` (later `ratings.csv`/`movies.csv`): the
project's own samples and the cases of the ratings-reader tests, never MovieLens lines."""

from .common import INTRO, read, seed, two_parts

RATINGS_TEST = "tests/core/test_ratings.cpp"


def make_ratings():
    common = (" optionally followed by `\\n%%\\n` and the titles file: the harness writes the part "
              "before the first `\\n%%\\n` (plus a newline) as {r} and the rest as {i} in a folder "
              "of their own and reads the folder with `loadRatings`, then splits what it read "
              "with `makeRatingsData`. Only the project's own `*_style` samples and cases written "
              "here: no line of the MovieLens files (their licence forbids redistribution).")
    INTRO["ratings_tab"] = "MovieLens 100K layout, `u.data` bytes," + common.format(r="`u.data`", i="`u.item`")
    INTRO["ratings_dat"] = "MovieLens 1M layout, `ratings.dat` bytes," + common.format(r="`ratings.dat`", i="`movies.dat`")
    INTRO["ratings_csv"] = ("Later MovieLens layout, `ratings.csv` bytes," +
                            common.format(r="`ratings.csv`", i="`movies.csv`"))

    def real(t, folder, rname, iname, what):
        r, i = read(f"ratings/{folder}/{rname}"), read(f"ratings/{folder}/{iname}")
        src = f"tests/data/ratings/{folder}/"
        seed(t, f"real_{rname.replace('.', '_')}.txt", r, what + f"; {rname} alone",
             src + rname + " (written for the tests)")
        seed(t, f"real_{rname.replace('.', '_')}_{iname.replace('.', '_')}.txt", two_parts(r, i),
             what + f"; with {iname}", src + rname + " and " + iname + " (written for the tests)")

    def cases(t, items):
        for name, ratings, titles, what, source in items:
            data = ratings if titles is None else two_parts(ratings, titles)
            seed(t, name + ".txt", data, what, source)

    rt = RATINGS_TEST + " ratingsErrors_data "
    tt = RATINGS_TEST + " titlesErrors_data "
    # --- u.data ---
    t = "ratings_tab"
    real(t, "ml100k_style", "u.data", "u.item",
         "17 ratings of 4 users on 6 items; u.item Latin-1 with 19 genre flags, an item never rated")
    cases(t, [
        ("ok_no_timestamp_titles", b"1\t10\t2\n1\t30\t4\n2\t20\t5\n",
         b"30|Thirty (2001)|x\n10|Ten (1990)|y\n40|Forty (1999)|z\n",
         "three fields (no timestamp); titles in another order, an unrated item, a rated one without a title",
         RATINGS_TEST + " explicitTitles"),
        ("ok_huge_sparse_ids", b"9000000000\t5\t1\t0\n3\t70000000\t2\t0\n3\t5\t3\t0\n42\t4\t4\t0\n9000000000\t4\t5\t0\n",
         None, "ids beyond the direct table (2^22), in any order", RATINGS_TEST + " reindexing"),
        ("ok_half_stars_crlf_blank_lines", b"1\t2\t3.5\t100\r\n\r\n2\t2\t0.5\t101\r\n2\t3\t5\t102\r\n\n",
         None, "half stars, CRLF, blank lines", "written for the fuzzers"),
        ("ok_bom", b"\xef\xbb\xbf1\t2\t4\t5\n2\t2\t3\t6\n", None, "a UTF-8 BOM before the first line",
         "written for the fuzzers"),
        ("bad_comma", b"1\t2\t3\t4\n1,3,4,5\n", None, "a line with commas", rt + "'comma in u.data'"),
        ("bad_one_field", b"12\n", None, "one field", rt + "'one field, no delimiter'"),
        ("bad_two_fields", b"1\t2\n", None, "two fields", rt + "'two fields'"),
        ("bad_five_fields", b"1\t2\t3\t4\t5\n", None, "five fields", RATINGS_TEST + " formats_data 'TAB, five fields'"),
        ("bad_user_not_a_number", b"1\t2\t3\t4\nx\t2\t3\t4\n", None, "user 'x'", rt + "'user not a number'"),
        ("bad_user_0", b"0\t2\t3\t4\n", None, "user 0", rt + "'user 0'"),
        ("bad_huge_user", b"99999999999999999999\t1\t1\t1\n", None, "a user id beyond 64 bits", rt + "'huge user'"),
        ("bad_rating_not_a_number", b"1\t2\tabc\t4\n", None, "rating 'abc'", rt + "'rating not a number'"),
        ("bad_rating_0", b"1\t2\t0\t4\n", None, "rating 0", rt + "'rating 0'"),
        ("bad_rating_negative", b"1\t2\t-1\t4\n", None, "rating -1", rt + "'rating negative'"),
        ("bad_rating_beyond_float", b"1\t2\t1e999\t4\n", None, "rating 1e999", rt + "'rating beyond float'"),
        ("bad_decimal_comma", b"1\t2\t3,5\t4\n", None, "rating '3,5'", rt + "'decimal comma'"),
        ("bad_timestamp", b"1\t2\t3\t12:00\n", None, "timestamp '12:00'", rt + "'timestamp'"),
        ("bad_repeated_pair", b"5\t1\t1\t1\n3\t12\t4\t1\n3\t11\t4\t1\n9\t9\t1\t1\n\n5\t2\t2\t2\n3\t12\t5\t1\n5\t1\t2\t2\n",
         None, "user 3 rates item 12 twice", rt + "'repeated pair'"),
        ("bad_empty", b"", None, "an empty file", rt + "'empty'"),
        ("bad_item_id_not_a_number", b"1\t1\t1\n", b"1|A|x\nB|B|y\n", "u.item: id 'B'", tt + "'u.item id'"),
        ("bad_item_one_field", b"1\t1\t1\n", b"1|A|x\n\n7\n", "u.item: a line of one field", tt + "'u.item one field'"),
        ("bad_items_empty", b"1\t1\t1\n", b"\n", "u.item: a blank line only", tt + "'empty'"),
        ("bad_item_listed_twice", b"1\t4\t1\n", b"4|A|x\n5|B|y\n4|C|z\n", "u.item: item 4 twice",
         tt + "'listed twice' (u.item layout)"),
    ])
    # --- ratings.dat ---
    t = "ratings_dat"
    real(t, "ml1m_style", "ratings.dat", "movies.dat",
         "8 ratings of 3 users on 3 items; movies.dat Latin-1, an item never rated")
    cases(t, [
        ("ok_crlf_no_timestamp", b"1::2::3::4\r\n2::2::5\r\n", None, "CRLF; a line without its timestamp",
         RATINGS_TEST + " formats_data 'sniffed ::'"),
        ("ok_titles_with_colons_utf8", b"1::1::5::0\n1::2::3::0\n2::2::4::0\n",
         b"1::Odd::Title (2000)::Drama\n2::Caf\xc3\xa9 (2001)::Comedy\n",
         "a title holding '::'; a UTF-8 title", RATINGS_TEST + " explicitTitles (movies.dat)"),
        ("ok_huge_sparse_ids", b"9000000000::5::1::0\n3::70000000::2::0\n3::5::3::0\n", None,
         "ids beyond the direct table", RATINGS_TEST + " reindexing (:: layout)"),
        ("bad_tab", b"1::2::3::4\n\n1\t3\t4\t5\n", None, "a TAB-separated line", rt + "'TAB in ratings.dat'"),
        ("bad_five_fields", b"1::2::3::4::5\n", None, "five fields", rt + "'five fields'"),
        ("bad_negative_item", b"1::-4::3::4\n", None, "item -4", rt + "'negative item'"),
        ("bad_rating_inf", b"1::2::inf::4\n", None, "rating 'inf'", rt + "'rating inf'"),
        ("bad_rating_nan", b"1::2::nan::4\n", None, "rating 'nan'", rt + "'rating nan' (:: layout)"),
        ("bad_blank_lines_only", b"\n\r\n\n", None, "blank lines", rt + "'blank lines only'"),
        ("bad_repeated_pair", b"1::2::3::4\n2::2::3::4\n1::2::5::6\n", None, "user 1 rates item 2 twice",
         rt + "'repeated pair' (:: layout)"),
        ("bad_huge_user", b"99999999999999999999::1::1::1\n", None, "a user id beyond 64 bits",
         rt + "'huge user' (:: layout)"),
        ("bad_movie_id_0", b"1::1::1\n", b"0::A::Drama\n", "movies.dat: id 0", tt + "'movies.dat id 0'"),
        ("bad_movie_listed_twice", b"1::1::1\n", b"4::A::Drama\n5::B::X\n4::C::Y\n", "movies.dat: item 4 twice",
         tt + "'listed twice'"),
        ("bad_movies_empty", b"1::1::1\n", b"\n", "movies.dat: a blank line only", tt + "'empty' (movies.dat)"),
    ])
    # --- ratings.csv ---
    t = "ratings_csv"
    real(t, "mllatest_style", "ratings.csv", "movies.csv",
         "7 ratings, header, CRLF, half stars; movies.csv UTF-8 with quoted titles (a comma, \"\" "
         "escapes), an item never rated")
    cases(t, [
        ("ok_bom_three_columns", b"\xef\xbb\xbfuserId,movieId,rating\n2,9,4\n", None,
         "a BOM before a header without the timestamp column", RATINGS_TEST + " folderAndGzip (BOM)"),
        ("ok_no_header", b"1,2,3.5,100\n2,2,4,101\n", None, "ratings without the header line",
         "written for the fuzzers"),
        ("ok_titles_quoted", b"userId,movieId,rating,timestamp\n1,5,4,0\n1,6,3,0\n2,7,5,0\n2,8,1,0\n",
         b'movieId,title,genres\n5,"A, B",Drama\n6,"Say ""Hi""",X\n7,  Spaces  ,Y\n8,"Last"\n',
         "quoted titles: a comma, \"\" escapes, padding, no genres field", RATINGS_TEST + " explicitTitles (list.csv)"),
        ("ok_huge_sparse_ids", b"userId,movieId,rating,timestamp\n9000000000,5,1,0\n3,70000000,2,0\n", None,
         "ids beyond the direct table", RATINGS_TEST + " reindexing (CSV layout)"),
        ("bad_semicolons", b"userId,movieId,rating,timestamp\n1;2;3;4\n", None, "semicolons",
         rt + "'semicolons in ratings.csv'"),
        ("bad_fractional_item", b"1,2.5,3,4\n", None, "item 2.5", rt + "'fractional item'"),
        ("bad_rating_nan", b"userId,movieId,rating\n1,2,nan\n", None, "rating 'nan'", rt + "'rating nan'"),
        ("bad_spaces_around_a_field", b"1, 2,3,4\n", None, "' 2'", rt + "'spaces around a field'"),
        ("bad_header_only", b"userId,movieId,rating,timestamp\r\n", None, "only the header", rt + "'header only'"),
        ("bad_wrong_header", b"user,item,rating\n1,2,3\n", None, "another header", rt + "'wrong header'"),
        ("bad_repeated_pair", b"userId,movieId,rating,timestamp\n1,2,3,4\n1,2,4.5,5\n", None,
         "user 1 rates item 2 twice", rt + "'repeated pair' (CSV layout)"),
        ("bad_movies_open_quote", b"1,3,1\n", b'movieId,title,genres\n3,"A, B,X\n', "movies.csv: an open quote",
         tt + "'open quote'"),
        ("bad_movies_text_after_quote", b"1,3,1\n", b'movieId,title,genres\n3,"A"B,X\n',
         "movies.csv: text after the closing quote", tt + "'text after the quote'"),
        ("bad_movies_quote_inside", b"1,3,1\n", b'3,A "B",X\n', "movies.csv: a quote inside an unquoted title",
         tt + "'quote inside'"),
        ("bad_movies_wrong_header", b"1,1,1\n", b"id,name\n1,A\n", "movies.csv: another header", tt + "'wrong header'"),
        ("bad_movies_header_only", b"1,1,1\n", b"movieId,title,genres\n", "movies.csv: only the header",
         tt + "'header only'"),
    ])
