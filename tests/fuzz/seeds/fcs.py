"""Seeds of the `fcs` target: FCS files, real ones from tests/data cut small, and synthetic
ones (valid and malformed) written by a Python port of the test suite's FCS writer."""

import re
import struct

from .common import INTRO, read, seed

FCS_TEST = "tests/core/test_fcs.cpp"


def fcs_header_field(v):
    return str(v).rjust(8).encode()


def build_fcs(keywords, data=b"", version=b"FCS3.1", delim=b"/", header_data_offsets=True,
              header_blank=b"        ", text_data_offsets=True, end_data_shift=0, text_shift=0,
              header_begin_shift=0, final_delimiter=True, after_text=b"", tail=b""):
    """The writer of test_fcs.cpp (buildFcs), line for line; `tail` is appended after the
    DATA (a CRC, a supplemental TEXT)."""
    d = delim

    def esc(s):
        return s.replace(d, d + d)

    body = d
    for k, v in keywords:
        body += esc(k) + d + esc(v) + d

    def offsets(begin, end):
        return (b"$BEGINDATA" + d + str(begin).rjust(12, "0").encode() + d + b"$ENDDATA" + d
                + str(end).rjust(12, "0").encode() + d)

    text_length = (len(body) + (len(offsets(0, 0)) if text_data_offsets else 0)
                   - (0 if final_delimiter else 1) + len(after_text))
    text_begin = 58
    text_end = text_begin + text_length - 1
    data_begin = text_end + 1
    data_end = data_begin + len(data) - 1 + end_data_shift
    text = body
    if text_data_offsets:
        text += offsets(data_begin + text_shift, data_end + text_shift)
    if not final_delimiter:
        text = text[:-1]
    text += after_text
    head = version + b"    " + fcs_header_field(text_begin) + fcs_header_field(text_end)
    if header_data_offsets:
        head += fcs_header_field(data_begin + header_begin_shift) + fcs_header_field(data_end)
    else:
        head += header_blank + header_blank
    head += fcs_header_field(0) + fcs_header_field(0)
    return head + text + data + tail


def uint_bytes(v, n, big):
    return v.to_bytes(n, "big" if big else "little")


def standard_keywords(datatype, bits, events, big, ranges=()):
    wide = any(b > 16 for b in bits)
    order = (b"4,3,2,1" if wide else b"2,1") if big else (b"1,2,3,4" if wide else b"1,2")
    k = [[b"$BYTEORD", order], [b"$DATATYPE", datatype], [b"$MODE", b"L"], [b"$NEXTDATA", b"0"],
         [b"$PAR", str(len(bits)).encode()], [b"$TOT", str(events).encode()]]
    for i, b in enumerate(bits):
        p = b"$P" + str(i + 1).encode()
        k.append([p + b"N", b"FSC-A" if i == 0 else b"P" + str(i + 1).encode()])
        k.append([p + b"B", str(b).encode()])
        k.append([p + b"E", b"0,0"])
        k.append([p + b"R", ranges[i] if i < len(ranges) else b"262144"])
    return k


def replace_kw(k, key, value):
    for kv in k:
        if kv[0] == key:
            kv[1] = value
            return k
    k.append([key, value])
    return k


def remove_kw(k, key):
    return [kv for kv in k if kv[0] != key]


K_FLOATS = [(1.5, -2.25), (1e-20, 3.0e30), (262143.0, 0.1)]


def float_spec(big):
    data = b"".join(struct.pack(">f" if big else "<f", v) for row in K_FLOATS for v in row)
    return standard_keywords(b"F", [32, 32], 3, big), data


def int_spec(bits, big, events=4):
    def top(b):
        return 4000000000 if b == 32 else (1 << b) - 1
    ranges = [str(1 << b).encode() for b in bits]
    data = b""
    for r in range(events):
        for c, b in enumerate(bits):
            v = 0 if r == 0 else top(b) if r == 1 else 1 + 2 * c if r == 2 else 0x80 + c
            data += uint_bytes(v, b // 8, big)
    return standard_keywords(b"I", bits, events, big, ranges), data


def fcs_cut(raw, events, delim, stext=None):
    """A real file cut to its first `events` events: $TOT, $ENDDATA (and the supplemental TEXT
    offsets) and the HEADER's DATA end rewritten in place with numbers of the same width, so
    that nothing else moves; the bytes after the DATA (a CRC) kept. `stext` = (bytes to keep of
    the supplemental TEXT)."""
    text_begin, text_end = int(raw[10:18]), int(raw[18:26])
    data_begin, data_end = int(raw[26:34]), int(raw[34:42])
    text = raw[text_begin : text_end + 1]
    kw = {}
    parts = text[1:].split(delim)
    for i in range(0, len(parts) - 1, 2):
        kw[parts[i].upper()] = parts[i + 1]
    tot = int(kw[b"$TOT"])
    event_bytes = (data_end - data_begin + 1) // tot
    new_end = data_begin + events * event_bytes - 1
    out = bytearray(raw[: data_begin])

    def put(key, value):
        pat = re.escape(delim + key + delim) + rb"([^" + re.escape(delim) + rb"]*)" + re.escape(delim)
        m = re.search(pat, bytes(out[text_begin : text_end + 1]))
        old = m.group(1)
        new = str(value).rjust(len(old), "0").encode()
        assert len(new) == len(old), (key, old, new)
        at = text_begin + m.start(1)
        out[at : at + len(old)] = new

    put(b"$TOT", events)
    put(b"$ENDDATA", new_end)
    out[34:42] = fcs_header_field(new_end)
    body = raw[data_begin : new_end + 1]
    if stext is None:
        trailer = raw[data_end + 1 :]
        return bytes(out) + body + trailer
    old_b = int(kw[b"$BEGINSTEXT"])
    new_b = new_end + 1
    new_e = new_b + stext - 1
    put(b"$BEGINSTEXT", new_b)
    put(b"$ENDSTEXT", new_e)
    if raw[58:66].strip() == str(old_b).encode():  # CyFlow repeats them after the HEADER
        out[58:66] = fcs_header_field(new_b)
        out[66:74] = fcs_header_field(new_e)
    return bytes(out) + body + raw[old_b : old_b + stext]


def make_fcs():
    t = "fcs"
    INTRO[t] = (
        "One FCS file per seed (the harness writes the bytes as `input.fcs` and reads it with "
        "`readFcs`, metadata only and whole, and stacked on itself with `readFcsFiles`). The "
        "synthetic files are made by a Python port of `buildFcs`, the writer in "
        "`tests/core/test_fcs.cpp` (58-byte HEADER, TEXT from byte 58, fixed-width "
        "`$BEGINDATA`/`$ENDDATA`), with the same keywords and values as the named test.")

    # --- real files, cut small ---
    src = "tests/data/fcs/"
    raw = read("fcs/Data23_Panel3_base_NR4_Patient9.fcs")
    seed(t, "real_krieg_NR4_12_events.fcs", fcs_cut(raw, 12, b"\\"),
         "CyTOF, FCS 3.0, float32 big-endian, 30 channels, `$CYT` DVS Sciences; cut to its first "
         "12 of 234 events ($TOT, $ENDDATA and the HEADER's DATA end rewritten in place with "
         "the same widths), the 8-byte CRC after the DATA kept",
         src + "Data23_Panel3_base_NR4_Patient9.fcs (Krieg et al. 2018, FlowRepository "
         "FR-FCM-ZY34, via HDCytoData, MIT)")
    raw = read("fcs/cyflow_cube_8.fcs")
    seed(t, "real_cyflow_cube_8_40_events.fcs", fcs_cut(raw, 40, b"/", stext=512),
         "CyFlow Cube, FCS 3.0, integers of 16, 32 and 8 bits little-endian; cut to 40 of 725 "
         "events, its supplemental TEXT (a ZIP archive, which the reader ignores) cut to its "
         "first 512 bytes; offsets rewritten in place (TEXT and the non-standard copy after the "
         "HEADER)",
         src + "cyflow_cube_8.fcs (fcsparser test file, MIT)")
    seed(t, "real_variable_int_example.fcs", read("fcs/variable_int_example.fcs"),
         "FCS 3.0, 2 events × 26: 25 × 16-bit and one 32-bit integer masked by $PnR; "
         "zero-padded offsets (whole file, 6 KB)",
         src + "variable_int_example.fcs (FlowIO example, BSD-3-Clause)")
    seed(t, "real_sample_header.fcs", read("fcs/sample_header.fcs"),
         "HEADER and TEXT of a Cytek Aurora FCS 3.1 file, form-feed delimiter, padded values; "
         "DATA missing: the metadata read, the data are refused (whole file, 3.9 KB)",
         src + "sample_header.fcs (fcsparser test file, MIT)")
    raw = read("fcs/npm_fcs_AriaFile1_truncated.fcs")
    seed(t, "real_aria_first_12k.fcs", raw[:12288],
         "FACSDiva (Aria II) FCS 3.0, TEXT at byte 256 with a form-feed delimiter, `$BEGINDATA` "
         "2 bytes before the HEADER's; the first 12 KiB of the (already truncated) file: the "
         "metadata read, the data are refused (201 of 10,000 events present)",
         src + "npm_fcs_AriaFile1_truncated.fcs (npm package fcs, MIT), first 12,288 bytes")
    seed(t, "bad_corrupted.fcs", read("fcs/corrupted.fcs"),
         "10 bytes of text, not an FCS file", src + "corrupted.fcs (fcsparser's corrupted/ folder)")

    # --- synthetic, valid ---
    for big in (False, True):
        k, d = float_spec(big)
        seed(t, f"ok_float32_{'be' if big else 'le'}.fcs", build_fcs(k, d),
             f"FCS 3.1, $DATATYPE F, 3 events × 2 with awkward values, {'big' if big else 'little'}"
             "-endian", FCS_TEST + " floats")
    for big in (False, True):
        k = standard_keywords(b"D", [64, 64, 64], 2, big)
        d = b"".join(struct.pack(">d" if big else "<d", v)
                     for v in (0.5, -1024.25, 1e10, 3.0, 0.0, -7.75))
        seed(t, f"ok_float64_{'be' if big else 'le'}.fcs", build_fcs(k, d),
             f"$DATATYPE D, 2 events × 3, {'big' if big else 'little'}-endian", FCS_TEST + " doubles")
    for bits, big in (([8, 8, 8], False), ([16, 16, 16], True), ([24, 24, 24], False),
                      ([32, 32, 32], True), ([8, 16, 24, 32, 16], False)):
        k, d = int_spec(bits, big)
        label = "mixed_8_16_24_32_16" if len(set(bits)) > 1 else f"int{bits[0]}"
        seed(t, f"ok_{label}_{'be' if big else 'le'}.fcs", build_fcs(k, d),
             f"$DATATYPE I, $PnB {'/'.join(map(str, bits))}, {'big' if big else 'little'}-endian, "
             "4 events with values at the top of each width; $PnR = 2^$PnB", FCS_TEST + " integers")
    # 64-bit integers: not in the tests; $BYTEORD with 8 digits, $PnR 2^64 (no mask).
    k = standard_keywords(b"I", [64, 64], 3, False, [b"18446744073709551616"] * 2)
    replace_kw(k, b"$BYTEORD", b"1,2,3,4,5,6,7,8")
    d = b"".join(uint_bytes(v, 8, False) for v in (0, (1 << 64) - 1, 1 << 53, 12345, 7, 1 << 63))
    seed(t, "ok_int64_le.fcs", build_fcs(k, d),
         "$DATATYPE I, two 64-bit integers, $BYTEORD 1,2,3,4,5,6,7,8, $PnR 2^64",
         "written for the fuzzers (the tests stop at 32 bits)")
    k = standard_keywords(b"I", [16, 16, 16, 32, 16], 1, False,
                          [b"1024", b"1000", b"65536", b"11209599", b"70000"])
    d = b"".join(uint_bytes(v, 4 if v > 0xFFFF else 2, False)
                 for v in (0xFC05, 0x1403, 0xFC05, 0x87654321, 0xFC05))
    seed(t, "ok_int_range_masks.fcs", build_fcs(k, d),
         "10-bit values with flag bits in 16-bit words: $PnR 1024, 1000, 65536, 11209599, 70000 "
         "(masked, masked, full width, 24 bits, wider than the word)",
         FCS_TEST + " integerRangeMask")
    k, d = float_spec(False)  # the test's form-feed case (it also uses '/' and '|')
    k = remove_kw(k, b"$P1N")
    k += [[b"$p1n", b"   FSC-A  "], [b"$P1S", b"CD3\x0cCD4"], [b"$P2S", b"CD45 \xb5g"],
          [b"Comment", "ü and –".encode()]]
    replace_kw(k, b"$TOT", b"  3   ")
    seed(t, "ok_text_syntax_formfeed.fcs", build_fcs(k, d, delim=b"\x0c", after_text=b"      "),
         "form-feed delimiter (FACSDiva's): an escaped (doubled) delimiter inside a value, a "
         "lower-case key, padded values, a Latin-1 and a UTF-8 value, padding after the last "
         "delimiter", FCS_TEST + " textSyntax")
    k, d = float_spec(True)
    seed(t, "ok_no_final_delimiter.fcs", build_fcs(k, d, final_delimiter=False),
         "TEXT without its final delimiter", FCS_TEST + " missingFinalDelimiter")
    k, d = float_spec(True)
    seed(t, "ok_header_offsets_blank.fcs", build_fcs(k, d, header_data_offsets=False),
         "blank DATA offsets in the HEADER; $BEGINDATA/$ENDDATA locate the DATA",
         FCS_TEST + " blankHeaderOffsets (blank)")
    k, d = float_spec(False)
    seed(t, "ok_enddata_past_end_of_file.fcs", build_fcs(k, d, end_data_shift=1),
         "$ENDDATA and the HEADER's DATA end one byte past the end of the file",
         FCS_TEST + " endDataOffByOne (one past the end of the file)")
    k, d = float_spec(False)
    seed(t, "ok_enddata_two_past_crc.fcs", build_fcs(k, d, end_data_shift=2, tail=b"00000000"),
         "DATA end two bytes past the data, a CRC after it", FCS_TEST + " endDataOffByOne (two past)")
    k, d = float_spec(True)
    seed(t, "ok_offsets_disagree_keywords_early.fcs", build_fcs(k, d, text_shift=-2),
         "$BEGINDATA/$ENDDATA 2 bytes early, HEADER right (the FACSDiva case)",
         FCS_TEST + " headerAndTextOffsetsDisagree")
    k, d = float_spec(True)
    seed(t, "ok_offsets_disagree_header_long.fcs", build_fcs(k, d, header_begin_shift=-4),
         "the HEADER's DATA segment one float too long; keywords right",
         FCS_TEST + " headerAndTextOffsetsDisagree")
    k = remove_kw(standard_keywords(b"I", [16, 16], 0, True, [b"1024", b"1024"]), b"$TOT")
    d = b"".join(uint_bytes(100 * r, 2, True) + uint_bytes(1023 - r, 2, True) for r in range(5))
    seed(t, "ok_fcs20_without_tot.fcs",
         build_fcs(k, d, version=b"FCS2.0", delim=b"\\", text_data_offsets=False),
         "FCS 2.0, backslash delimiter, no $TOT and no $BEGINDATA: 5 events counted from the "
         "HEADER's DATA segment", FCS_TEST + " fcs20WithoutTot")
    # Supplemental TEXT: not in the tests. Fixed-width offsets, so that one pass fixes them.
    k, d = float_spec(False)
    k = remove_kw(k, b"$P2S")
    stext = b"/$P2S/CD45/$P1N/ignored (TEXT wins)/Operator/Supplemental \xb5/"
    k += [[b"$BEGINSTEXT", b"000000000000"], [b"$ENDSTEXT", b"000000000000"]]
    first = build_fcs(k, d, version=b"FCS3.0", tail=stext)
    b0 = len(first) - len(stext)
    replace_kw(k, b"$BEGINSTEXT", str(b0).rjust(12, "0").encode())
    replace_kw(k, b"$ENDSTEXT", str(b0 + len(stext) - 1).rjust(12, "0").encode())
    seed(t, "ok_supplemental_text.fcs", build_fcs(k, d, version=b"FCS3.0", tail=stext),
         "FCS 3.0 with a supplemental TEXT after the DATA ($BEGINSTEXT/$ENDSTEXT): a marker "
         "added, a key repeated with another value (the primary TEXT wins, with a note), Latin-1",
         "written for the fuzzers")
    k, d = float_spec(False)
    replace_kw(k, b"$CYT", b"DVSSCIENCES-CYTOF-5.1.559")
    replace_kw(k, b"$P1N", b"CD45(In115)Dd")
    replace_kw(k, b"$P2N", b"Nd142Di")
    seed(t, "ok_mass_cytometry.fcs", build_fcs(k, d),
         "$CYT of a CyTOF and metal-tag channel names", FCS_TEST + " recognisesMassCytometry")

    # --- malformed ---
    good = build_fcs(*float_spec(False))
    k, d = float_spec(False)
    half = build_fcs(k, d)[:-12]
    seed(t, "bad_data_half_missing.fcs", half,
         "the last 12 bytes of the DATA cut: metadata read, data refused (1 of 3 events)",
         FCS_TEST + " metadataOnly")
    k, d = float_spec(True)
    seed(t, "bad_no_data_offsets.fcs",
         build_fcs(k, d, header_data_offsets=False, text_data_offsets=False),
         "blank HEADER DATA offsets and no $BEGINDATA/$ENDDATA",
         FCS_TEST + " blankHeaderOffsets (no DATA offsets)")
    seed(t, "bad_header_cut_at_40.fcs", good[:40], "the first 40 bytes of a file",
         FCS_TEST + " rejects_data 'HEADER only, cut'")
    seed(t, "bad_version_FCSX.Y.fcs", b"FCSX.Y" + good[6:], "version 'FCSX.Y'",
         FCS_TEST + " rejects_data 'bad version'")
    seed(t, "bad_header_offset_not_a_number.fcs", good[:10] + b"   abcde" + good[18:],
         "TEXT begin '   abcde'", FCS_TEST + " rejects_data 'HEADER offset not a number'")
    seed(t, "bad_text_beyond_the_file.fcs", good[:18] + b"  999999" + good[26:],
         "TEXT end 999999", FCS_TEST + " rejects_data 'TEXT beyond the file'")
    k, d = float_spec(False)
    seed(t, "bad_data_offsets_beyond_the_file.fcs",
         build_fcs(k, d, header_begin_shift=1000, text_shift=1000, end_data_shift=1000),
         "DATA offsets 1000 bytes past the end", FCS_TEST + " rejects_data 'DATA offsets beyond the file'")
    k, d = float_spec(False)
    seed(t, "bad_tot_larger_than_data.fcs", build_fcs(replace_kw(k, b"$TOT", b"4"), d),
         "$TOT 4, DATA for 3", FCS_TEST + " rejects_data 'DATA shorter than $TOT'")
    k, d = float_spec(False)
    seed(t, "bad_tot_smaller_than_data.fcs", build_fcs(replace_kw(k, b"$TOT", b"2"), d),
         "$TOT 2, DATA for 3", FCS_TEST + " rejects_data 'DATA longer than $TOT by an event'")
    k, d = float_spec(False)
    seed(t, "bad_par_larger_than_names.fcs", build_fcs(replace_kw(k, b"$PAR", b"3"), d),
         "$PAR 3 with two $PnN", FCS_TEST + " rejects_data '$PAR larger than the names'")
    k, d = float_spec(False)
    replace_kw(k, b"$DATATYPE", b"I")
    seed(t, "bad_int_pnb_12.fcs", build_fcs(replace_kw(k, b"$P1B", b"12"), d),
         "$DATATYPE I with $P1B 12", FCS_TEST + " rejects_data 'integer $PnB 12'")
    k, d = float_spec(False)
    seed(t, "bad_byteord_3412.fcs", build_fcs(replace_kw(k, b"$BYTEORD", b"3,4,1,2"), d),
         "$BYTEORD 3,4,1,2 (PDP order)", FCS_TEST + " rejects_data '$BYTEORD 3,4,1,2'")
    k, d = float_spec(False)
    seed(t, "bad_delimiter_nul.fcs", build_fcs(k, d, delim=b"\x00"),
         "TEXT delimited by NUL bytes (not a valid delimiter)", "written for the fuzzers")
