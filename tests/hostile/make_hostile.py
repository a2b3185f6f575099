#!/usr/bin/env python3
"""Writes the hostile corpus: damaged and malicious model archives and sidecars, each with
one defect, and expected.json saying how symbolite must refuse each one (error kind and a
substring of the message). symbolite/mobile/hostile_corpus_test.cpp replays it.

Derived from real fixtures: the zip-structure cases damage tests/fixtures/models/
tag_minus_one.ptl (the smallest archive PyTorch wrote for us, with PyTorch's exact layout:
alignment padding, data descriptors, ZIP64 end records); the pickle and debug-record cases
are nested.ptl's data.pkl plus one replaced record (the records read after it are left out,
so each file holds one defect and stays small); the sidecar cases damage
fuzz/corpus/sidecar_reader/nested.symdbg (nested.ptl's sidecar). Plain Python 3 (zipfile,
struct, pickle, zlib), no torch. The output is deterministic; keep it under ~300 KB.

    python3 tests/hostile/make_hostile.py

Manifest entries: "open" is how the test opens the file: "model" (ModelInfo::load),
"sidecar" (SidecarReader::open, then every handle symbolicated) or "zip" (ZipReader with
"max_entry_size" lowered, every entry read: for a bomb that would need a file of megabytes
to pass the default limit).
"""
import io
import json
import pathlib
import pickle
import struct
import zipfile
import zlib

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
NESTED = ROOT / "tests" / "fixtures" / "models" / "nested.ptl"
SMALL = ROOT / "tests" / "fixtures" / "models" / "tag_minus_one.ptl"
SIDECAR = ROOT / "fuzz" / "corpus" / "sidecar_reader" / "nested.symdbg"

cases = {}


def case(name, data, kind, message, why, open_as="model", **extra):
    (HERE / name).write_bytes(data)
    cases[name] = dict(open=open_as, kind=kind, message=message, why=why, **extra)


# --- zip structure ------------------------------------------------------------------------

def central_headers(raw):
    """(offset, name) of each central directory header, via PyTorch's ZIP64 end record."""
    eocd = len(raw) - 22
    assert raw[eocd:eocd + 4] == b"PK\x05\x06"
    locator = eocd - 20
    assert raw[locator:locator + 4] == b"PK\x06\x07"
    (zip64_end,) = struct.unpack_from("<Q", raw, locator + 8)
    count, _, offset = struct.unpack_from("<QQQ", raw, zip64_end + 32)
    out = []
    for _ in range(count):
        assert raw[offset:offset + 4] == b"PK\x01\x02"
        name_len, extra_len, comment_len = struct.unpack_from("<HHH", raw, offset + 28)
        out.append((offset, raw[offset + 46:offset + 46 + name_len].decode()))
        offset += 46 + name_len + extra_len + comment_len
    return out, zip64_end, eocd


def declare_size(raw, name_suffix, size):
    """`raw` with the central directory's uncompressed size of the entry ending in
    `name_suffix` set to `size` (< 4 GiB); the entry's bytes are unchanged."""
    b = bytearray(raw)
    at = b.find(b"PK\x01\x02")
    while at >= 0:
        name_len = struct.unpack_from("<H", b, at + 28)[0]
        if bytes(b[at + 46:at + 46 + name_len]).decode().endswith(name_suffix):
            struct.pack_into("<I", b, at + 24, size)
            return bytes(b)
        at = b.find(b"PK\x01\x02", at + 4)
    raise KeyError(name_suffix)


def rewrite(replace, source=NESTED, keep_all=False, deflated=False):
    """`source`'s data.pkl and version (every record with `keep_all`), plus the records in
    `replace` (names without the folder), in the source's order, as zipfile writes them. The
    readers skip absent optional records, so only the replaced one is decoded after data.pkl.
    With `deflated`, the replaced records are deflated (a large pickle stays small on disk)."""
    import io
    buf = io.BytesIO()
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(buf, "w") as dst:
        for info in src.infolist():
            record = info.filename.split("/", 1)[1]
            if record in replace:
                if deflated:
                    info.compress_type = zipfile.ZIP_DEFLATED
                dst.writestr(info, replace[record])
            elif keep_all or record in ("data.pkl", "version"):
                dst.writestr(info, src.read(info.filename))
    return buf.getvalue()


def write_zip(entries):
    """A minimal zip: entries are (name, method, crc, compressed bytes, uncompressed size).
    Sizes of 4 GiB or more go in a ZIP64 extra field of the central header."""
    body, central = b"", b""
    for name, method, crc, data, size in entries:
        name_b = name.encode()
        offset = len(body)
        size32 = min(size, 0xFFFFFFFF)
        extra = struct.pack("<HHQ", 1, 8, size) if size >= 0xFFFFFFFF else b""
        body += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0, crc, len(data),
                            size32, len(name_b), 0) + name_b + data
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, method, 0, 0, crc,
                               len(data), size32, len(name_b), len(extra), 0, 0, 0, 0,
                               offset) + name_b + extra
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(entries), len(entries), len(central),
                      len(body), 0)
    return body + central + end


def deflate(data):
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


def zip_cases():
    raw = SMALL.read_bytes()
    headers, zip64_end, eocd = central_headers(raw)
    cd_start = headers[0][0]
    with zipfile.ZipFile(SMALL) as z:
        infos = {i.filename: i for i in z.infolist()}

    def data_offset(info):
        return info.header_offset + 30 + len(info.filename) + struct.unpack_from(
            "<H", raw, info.header_offset + 28)[0]

    data_pkl = infos["tag_minus_one/data.pkl"]  # the first entry, stored
    source = infos["tag_minus_one/code/__torch__/model_defs.py"]  # the second
    no_eocd = "no end of central directory record"

    # Cut at every structural boundary: each loses the end records.
    case("truncated_after_local_header.ptl", raw[:data_offset(data_pkl)], "format", no_eocd,
         "cut right after the first local header (and its padding)")
    case("truncated_mid_data.ptl", raw[:data_pkl.header_offset + 100], "format", no_eocd,
         "cut inside data.pkl's bytes")
    case("truncated_mid_central_directory.ptl", raw[:(cd_start + zip64_end) // 2], "format",
         no_eocd, "cut inside the central directory")
    case("truncated_mid_zip64_end.ptl", raw[:zip64_end + 20], "format", no_eocd,
         "cut inside the ZIP64 end of central directory record")
    case("truncated_mid_eocd.ptl", raw[:eocd + 11], "format", no_eocd,
         "cut inside the end of central directory record")
    # The middle cut out, the end records kept: their offsets now point past the file.
    case("truncated_middle_kept_end.ptl", raw[:data_pkl.header_offset] + raw[cd_start:],
         "format", "does not lie before its locator",
         "data and code cut out, central directory and end records kept")

    # Declared sizes a deflated record could really inflate to (a 3.5 GiB record is a 3.5 MB
    # file): refused from the central directory before any memory is taken.
    case("bomb_pickle_record.ptl", declare_size(raw, "/callstack_debug_map.pkl", 0xE0000000),
         "limit", "the pickle is 3758096384 bytes uncompressed, more than the limit of 268435456",
         "callstack_debug_map.pkl (deflated) declared as 3.5 GiB uncompressed")
    case("bomb_version_record.ptl",
         declare_size(rewrite({"version": b"3\n"}, deflated=True), "/version", 1 << 30),
         "format", "archive entry 'nested/version' is 1073741824 bytes",
         "the version record (deflated) declared as 1 GiB uncompressed")
    case("storage_larger_than_declared.ptl",
         rewrite({"data/1": b"\0" * (8 << 20)}, keep_all=True, deflated=True), "format",
         "archive entry 'nested/data/1' is 8388608 bytes, but its storage declares 4 Float "
         "elements (16 bytes)",
         "a parameter's storage record (deflated, 8 KB on disk) inflating to 8 MiB where data.pkl "
         "declares 4 floats", open_as="runtime")
    case("version_not_a_number.ptl", rewrite({"version": b"3; rm -rf /\n"}), "format",
         "archive entry 'nested/version' does not hold a version number",
         "the version record holds text that is not a number")

    def flipped(at, mask=0x01):
        b = bytearray(raw)
        b[at] ^= mask
        return bytes(b)

    case("flip_local_signature.ptl", flipped(data_pkl.header_offset + 1), "format",
         "bad local header signature", "a bit of data.pkl's local header signature flipped")
    case("flip_central_signature.ptl", flipped(cd_start + 2), "format",
         "bad central directory header signature", "first central header signature flipped")
    case("flip_eocd_signature.ptl", flipped(eocd + 3), "format", no_eocd,
         "end of central directory signature flipped")
    case("flip_zip64_end_signature.ptl", flipped(zip64_end + 3), "format",
         "bad ZIP64 end of central directory signature", "ZIP64 end record signature flipped")
    at = data_pkl.filename.index("data.pkl")
    upper = data_pkl.filename[:at] + "D" + data_pkl.filename[at + 1:]
    case("flip_local_name.ptl", flipped(data_pkl.header_offset + 30 + at, 0x20), "format",
         f"local header names '{upper}', central directory names '{data_pkl.filename}'",
         "a letter of data.pkl's local name flipped to upper case")
    central_of = {name: off for off, name in headers}
    c = central_of[data_pkl.filename]
    case("flip_central_crc.ptl", flipped(c + 16), "format", "CRC-32 mismatch",
         "data.pkl's CRC-32 in the central directory flipped")
    b = bytearray(raw)
    struct.pack_into("<H", b, c + 10, 12)
    case("flip_central_method.ptl", bytes(b), "unsupported",
         "compression method 12 (bzip2) is not supported",
         "data.pkl's method changed to bzip2 in the central directory")
    b = bytearray(raw)
    struct.pack_into("<I", b, c + 42, data_pkl.header_offset + 4)
    case("flip_central_offset.ptl", bytes(b), "format", "bad local header signature",
         "data.pkl's local header offset moved by 4 bytes")
    b = bytearray(raw)
    struct.pack_into("<I", b, c + 24, data_pkl.file_size + 1)
    case("flip_central_size.ptl", bytes(b), "format",
         f"stored entry has compressed size {data_pkl.file_size} but uncompressed size "
         f"{data_pkl.file_size + 1}",
         "data.pkl's uncompressed size changed, the compressed one not")
    b = bytearray(raw)
    struct.pack_into("<QQ", b, zip64_end + 24, len(headers) + 1000, len(headers) + 1000)
    case("flip_entry_count.ptl", bytes(b), "format",
         f"end record claims {len(headers) + 1000} entries",
         "ZIP64 end record claims 1000 more entries than the directory holds")
    dbg = infos["tag_minus_one/callstack_debug_map.pkl"]
    case("flip_deflated_data.ptl", flipped(data_offset(dbg) + 5, 0x80), "format",
         "archive entry 'tag_minus_one/callstack_debug_map.pkl'",
         "a bit of callstack_debug_map.pkl's deflate stream flipped")

    # Overlapping entries. Two central headers naming one local header: the local name
    # matches only one of them.
    b = bytearray(raw)
    struct.pack_into("<I", b, central_of[source.filename] + 42, 0)
    case("overlap_same_local_header.ptl", bytes(b), "format",
         f"local header names '{data_pkl.filename}', central directory names "
         f"'{source.filename}'",
         "the second entry's central header points at the first entry's local header")
    # data.pkl (stored) claims 100 bytes more: its data now covers the next local header.
    b = bytearray(raw)
    size = data_pkl.file_size + 100
    struct.pack_into("<II", b, c + 20, size, size)
    case("overlap_data_ranges.ptl", bytes(b), "format",
         f"entries '{data_pkl.filename}' (bytes [0, {data_offset(data_pkl) + size})) and "
         f"'{source.filename}' (bytes [{source.header_offset}, ",
         "data.pkl claims 100 more bytes, reaching over the next entry's local header")

    # Zip bombs. Zeros deflate about 1000:1; the real kind is small on disk.
    zeros = bytes(4 << 20)
    bomb = deflate(zeros)
    crc = zlib.crc32(zeros)
    case("bomb_claimed_size.ptl",
         write_zip([("bomb/data.pkl", 8, crc, bomb, 5 << 30)]), "limit",
         "entry is 5368709120 bytes uncompressed, more than the limit of 4294967296",
         "4 MiB of zeros declared (ZIP64) as 5 GiB: refused from the central directory alone")
    case("bomb_understated.ptl",
         write_zip([("bomb/data.pkl", 8, crc, bomb, 4096)]), "format",
         "deflate stream inflates to more than the declared 4096 bytes",
         "4 MiB of zeros declared as 4 KiB: inflating stops at the declared size")
    case("bomb_ratio.zip", write_zip([("bomb/data/0", 8, crc, bomb, len(zeros))]), "limit",
         "entry is 4194304 bytes uncompressed, more than the limit of 1048576",
         "an honest 1000:1 bomb, opened with max_entry_size lowered to 1 MiB (the default "
         "4 GiB would need a 4 MiB file)", open_as="zip", max_entry_size=1 << 20)


# --- pickles ------------------------------------------------------------------------------

P = b"\x80\x02"  # PROTO 2


def pickle_cases():
    case("pickle_deep_marks.ptl", rewrite({"data.pkl": P + b"(" * 1000 + b"."}), "limit",
         "more than 512 nested MARKs", "data.pkl opens 1000 MARKs")
    case("pickle_deep_tuples.ptl",
         rewrite({"bytecode.pkl": P + b")" + b"\x85" * 1000 + b"."}), "limit",
         "values nested deeper than the limit of 512",
         "bytecode.pkl nests 1000 one-element tuples (no MARKs)")
    case("pickle_deep_lists.ptl",
         rewrite({"bytecode.pkl": P + b"]" * 1000 + b"a" * 999 + b"."}), "limit",
         "values nested deeper than the limit of 512", "bytecode.pkl nests 1000 lists")
    case("pickle_many_lists.ptl",
         rewrite({"bytecode.pkl": P + b"(" + b"]" * 1000000 + b"l."}, deflated=True), "limit",
         "the values built cost more than 4194304 units",
         "bytecode.pkl: a million empty lists in one list (1 MB deflated to 1 KB); the stack "
         "limit alone would let 16 million through, 2 GB of values")
    # ']q\0' list0 -> memo 0; 'h\0a' appends list0 to itself.
    case("memo_self_append.ptl",
         rewrite({"callstack_debug_map.pkl": P + b"]q\x00h\x00a."}), "unsupported",
         "cannot put the list inside itself", "a list appended to itself through the memo")
    # list0 goes into list1, then list1 into list0: a cycle through two containers.
    case("memo_cycle.ptl",
         rewrite({"callstack_debug_map.pkl": P + b"]q\x00]h\x00aa0."}), "unsupported",
         "already inside another container",
         "list0 appended to list1, then list1 to list0 (a two-node cycle)")
    case("memo_dict_self.ptl",
         rewrite({"callstack_debug_map.pkl": P + b"}q\x00X\x01\x00\x00\x00kh\x00s."}),
         "unsupported", "cannot put the dict inside itself", "a dict set as its own value")
    case("memo_get_unset.ptl", rewrite({"callstack_debug_map.pkl": P + b"h\x05."}), "format",
         "memo key 5 was never stored", "BINGET of a memo key nothing was PUT to")
    case("memo_huge_key.ptl",
         rewrite({"callstack_debug_map.pkl": P + b")r\xff\xff\xff\xff."}), "limit",
         "memo key 4294967295", "LONG_BINPUT to memo key 0xFFFFFFFF")
    case("huge_binunicode.ptl",
         rewrite({"mobile_debug_handles.pkl": P + b"X\xff\xff\xff\xffabc."}), "format",
         "needs 4294967295 bytes, 4 left", "BINUNICODE claiming 0xFFFFFFFF bytes")
    case("huge_binbytes.ptl",
         rewrite({"mobile_debug_handles.pkl": P + b"B\xff\xff\xff\xffabc."}), "format",
         "needs 4294967295 bytes, 4 left", "BINBYTES claiming 0xFFFFFFFF bytes")
    case("huge_long4.ptl",
         rewrite({"mobile_debug_handles.pkl": P + b"\x8b\xff\xff\xff\x7f\x00."}), "format",
         "needs 2147483647 bytes, 2 left", "LONG4 claiming 2 GiB of digits")


# --- wrong-typed debug records --------------------------------------------------------------

def dumps(value):
    return pickle.dumps(value, protocol=2)


DEBUG_PKL = "code/__torch__/model_defs.py.debug_pkl"  # the first debug_pkl nested.ptl holds
TABLE = "FORMAT_WITH_STRING_TABLE"


def code(instructions=(), operators=()):
    return (("instructions", instructions), ("operators", operators), ("constants", ()),
            ("types", ()), ("register_size", 0))


# One list of 10,000 references to string 0, pickled once and shared by every source.
AMPLIFIED_PIECES = [0] * 10000


def record_cases():
    good_row = (7, 1, "aten::add", None)
    frame = (("__torch__.M", "m"), 3, None, "forward")
    for name, record, value, kind, message, why in [
        # callstack_debug_map.pkl rows and frames
        ("callstack_row_not_tuple.ptl", "callstack_debug_map.pkl", (good_row, 5), "model",
         "row 1: expected tuple, got int", "a row that is an int"),
        ("callstack_row_arity.ptl", "callstack_debug_map.pkl", (good_row, (8, 2)), "model",
         "row 1: expected a tuple of 4 elements", "a row of 2 elements"),
        ("callstack_handle_string.ptl", "callstack_debug_map.pkl",
         (("7", 1, "aten::add", None),), "model", "row 0: expected int, got str",
         "debug handle written as a string"),
        ("callstack_node_kind_int.ptl", "callstack_debug_map.pkl", ((7, 1, 42, None),), "model",
         "row 0: expected str, got int", "node kind written as an int"),
        ("callstack_frame_arity.ptl", "callstack_debug_map.pkl",
         ((7, 1, "aten::add", (None, 3, None)),), "model",
         "call stack: expected a tuple of 4 elements", "a call-stack frame of 3 elements"),
        ("callstack_frame_list.ptl", "callstack_debug_map.pkl",
         ((7, 1, "aten::add", [None, 3, None, "forward"]),), "model",
         "expected tuple, got list", "a call-stack frame that is a list"),
        ("callstack_module_instance.ptl", "callstack_debug_map.pkl",
         ((7, 1, "aten::add", (("__torch__.M",), 3, None, "forward")),), "model",
         "module instance: expected (type, name), got 1 elements",
         "a module instance of one element"),
        ("callstack_callee_type.ptl", "callstack_debug_map.pkl",
         ((7, 1, "aten::add", (None, 3, "callee", "forward")),), "model",
         "expected tuple, got str", "a callee that is a string"),
        ("callstack_function_int.ptl", "callstack_debug_map.pkl",
         ((7, 1, "aten::add", (None, 3, frame, 9)),), "model", "expected str, got int",
         "a function name that is an int"),
        ("callstack_duplicate_handle.ptl", "callstack_debug_map.pkl", (good_row, good_row),
         "model", "debug handle 7 appears twice", "the same handle twice"),
        # *.debug_pkl, legacy format
        ("debug_pkl_legacy_row_arity.ptl", DEBUG_PKL, ((0,),), "model",
         "row 0: expected a tuple of 3 elements (byte_offset, source_range, tag), got 1",
         "legacy format: a row of one element"),
        ("debug_pkl_legacy_source_text.ptl", DEBUG_PKL, ((0, ((5, "f.py", 1), 0, 1), 0),),
         "model", "row 0: expected str, got int", "legacy format: source text as an int"),
        ("debug_pkl_legacy_source_arity.ptl", DEBUG_PKL, ((0, (("x", "f.py"), 0, 1), 0),),
         "model", "source: expected a tuple of 3 elements, got 2", "legacy format: a source tuple of 2 elements"),
        ("debug_pkl_legacy_range_inverted.ptl", DEBUG_PKL, ((0, (("x", "f.py", 1), 5, 1), 0),),
         "model", "invalid source range [5, 1)", "legacy format: range end before start"),
        ("debug_pkl_legacy_range_arity.ptl", DEBUG_PKL, ((0, (("x", "f.py", 1), 5), 0),),
         "model", "source range: expected a tuple of 3 elements, got 2",
         "legacy format: a source range of 2 elements"),
        # *.debug_pkl, string-table format
        ("debug_pkl_table_not_tuple.ptl", DEBUG_PKL, (TABLE, ["a"], ()), "model",
         "expected tuple, got list", "string-table format: the table is a list"),
        ("debug_pkl_table_non_string.ptl", DEBUG_PKL, (TABLE, ("a", 7), ()), "model",
         "expected str, got int", "string-table format: an int in the string table"),
        ("debug_pkl_table_filename_string.ptl", DEBUG_PKL,
         (TABLE, ("a",), ((0, (([0], "f.py", 1), 0, 1), 0),)), "model",
         "row 0: expected int, got str",
         "string-table format: a filename given as text, not an index"),
        ("debug_pkl_table_index_range.ptl", DEBUG_PKL,
         (TABLE, ("a",), ((0, (([7], 0, 1), 0, 1), 0),)), "model",
         "string table index 7 out of range (table has 1 strings)",
         "string-table format: a text index past the table"),
        ("debug_pkl_table_negative_index.ptl", DEBUG_PKL,
         (TABLE, ("a",), ((0, (([0], -1, 1), 0, 1), 0),)), "model",
         "string table index -1 out of range", "string-table format: filename index -1"),
        ("debug_pkl_table_row_not_tuple.ptl", DEBUG_PKL, (TABLE, ("a",), ("row",)), "model",
         "row 0: expected tuple, got str", "string-table format: a row that is a string"),
        ("debug_pkl_table_amplified.ptl", DEBUG_PKL,
         (TABLE, ("a\n" * 5000,),
          tuple((0, ((AMPLIFIED_PIECES, 0, i), 0, 1), 0) for i in range(100))), "limit",
         "the sources of the debug records decode to more than",
         "string-table format: 100 sources, each 10,000 times one 10 KB string (one pickled "
         "list, 20 KB): 30 GB if joined"),
        # mobile_debug_handles.pkl
        ("handles_empty.ptl", "mobile_debug_handles.pkl", (), "model",
         "expected the bytecode version first", "an empty tuple"),
        ("handles_entry_arity.ptl", "mobile_debug_handles.pkl", (8, ("forward",)), "model",
         "function 0: expected (name, table), got 1 elements",
         "a function entry without its table"),
        ("handles_name_int.ptl", "mobile_debug_handles.pkl",
         (8, (5, (("function_debug_handles", ([1, 2],)),))), "model",
         "function 0: expected str, got int", "a function name that is an int"),
        ("handles_value_string.ptl", "mobile_debug_handles.pkl",
         (8, ("forward", (("function_debug_handles", (["x"],)),))), "model",
         "expected int, got str", "a debug handle that is a string"),
        ("handles_table_not_tuple.ptl", "mobile_debug_handles.pkl", (8, ("forward", 3)),
         "model", "expected tuple, got int", "a function's table that is an int"),
        # bytecode.pkl instructions and operators
        ("bytecode_empty.ptl", "bytecode.pkl", (), "model", "empty bytecode tuple",
         "an empty tuple"),
        ("bytecode_function_arity.ptl", "bytecode.pkl", (8, ("forward",)), "model",
         "expected (name, code[, schema]), got 1 elements", "a function without code"),
        ("bytecode_missing_instructions.ptl", "bytecode.pkl",
         (8, ("forward", (("operators", ()),))), "model", "missing field 'instructions'",
         "code without instructions"),
        ("bytecode_instruction_arity.ptl", "bytecode.pkl",
         (8, ("forward", code(instructions=(("OP", 0),)))), "model",
         "instruction 0: expected (op, X, N), got 2 elements", "an instruction of 2 elements"),
        ("bytecode_instruction_types.ptl", "bytecode.pkl",
         (8, ("forward", code(instructions=(("OP", "0", 0),)))), "model",
         "instructions: expected int, got str", "an instruction's X that is a string"),
        ("bytecode_instruction_not_tuple.ptl", "bytecode.pkl",
         (8, ("forward", code(instructions=(("RET", 0, 0), 5)))), "model",
         "instructions: expected tuple, got int", "an instruction that is an int"),
        ("bytecode_operator_arity.ptl", "bytecode.pkl",
         (8, ("forward", code(operators=(("aten::add",),)))), "model",
         "operator 0: expected (name, overload[, num_args]), got 1 elements",
         "an operator of 1 element"),
        ("bytecode_operator_types.ptl", "bytecode.pkl",
         (8, ("forward", code(operators=(("aten::add", 1, 2),)))), "model",
         "operators: expected str, got int", "an operator overload that is an int"),
        ("bytecode_version_string.ptl", "bytecode.pkl", ("8",), "model",
         "expected int, got str", "the bytecode version as a string"),
    ]:
        case(name, rewrite({record: dumps(value)}), kind, message, f"{record}: {why}")


# --- bytecode the verifier refuses ---------------------------------------------------------

class _Opaque(pickle.Unpickler):
    """Reads bytecode.pkl without importing anything: globals and persistent ids stay names."""

    def find_class(self, module, name):
        return (module, name)

    def persistent_load(self, pid):
        raise pickle.UnpicklingError("bytecode.pkl of tag_minus_one.ptl holds no tensors")


def verifier_cases():
    """Well-formed pickles whose code breaks one of the verifier's rules; loading the model for
    running (open "runtime") must refuse it, naming the method and instruction."""
    with zipfile.ZipFile(SMALL) as z:
        record = next(n for n in z.namelist() if n.endswith("/bytecode.pkl"))
        version, (name, code_table, schema) = _Opaque(io.BytesIO(z.read(record))).load()
    fields = dict(code_table)

    def with_code(instructions=None, operators=None):
        table = dict(fields)
        if instructions is not None:
            table["instructions"] = tuple(instructions)
        if operators is not None:
            table["operators"] = tuple(operators)
        return dumps((version, (name, tuple(table.items()), schema)))

    def replaced(index, instruction):
        code = list(fields["instructions"])
        code[index] = instruction
        return code

    for case_name, data, message, why in [
        ("verifier_register_range.ptl", with_code(replaced(4, ("LOAD", 9, 0))),
         "instruction 4 (LOAD 9 0): register 9 out of range (register_size 3)",
         "LOAD of a register past register_size"),
        ("verifier_jump_outside.ptl", with_code(replaced(3, ("JMP", 40, 0))),
         "jump target 43 outside the function", "a jump past the last instruction"),
        ("verifier_jump_negative.ptl", with_code(replaced(3, ("JF", -9, 0))),
         "jump target -6 outside the function", "a jump before the first instruction"),
        ("verifier_jump_self.ptl", with_code(replaced(3, ("JMP", 0, 0))),
         "instruction 3 (JMP 0 0): jumps to itself", "a jump to itself, an endless loop"),
        ("verifier_jump_cycle.ptl",
         with_code(replaced(3, ("JMP", 1, 0))[:4] + [("JMP", -1, 0)] + list(fields["instructions"][5:])),
         "jumps back to itself through other jumps only",
         "two jumps to each other, an endless loop"),
        ("verifier_operator_range.ptl", with_code(replaced(13, ("OP", 7, 0))),
         "operator index 7 out of range (4 operators)", "OP naming an operator past the table"),
        ("verifier_constant_range.ptl", with_code(replaced(9, ("LOADC", 9, 0))),
         "constant index 9 out of range (3 constants)", "LOADC past the constants"),
        ("verifier_type_range.ptl", with_code(replaced(10, ("LIST_CONSTRUCT", 4, 2))),
         "type index 4 out of range", "LIST_CONSTRUCT naming a type past the types"),
        ("verifier_handle_count.ptl",
         with_code(list(fields["instructions"]) + [("RET", 0, 0)]),
         "15 debug handles for 16 instructions", "one instruction more than debug handles"),
        ("verifier_operator_arguments.ptl",
         with_code(operators=list(fields["operators"][:3]) + [("aten::add", "Tensor", 9)]),
         "aten::add.Tensor", "an operator called with more arguments than its schema has"),
    ]:
        case(case_name, rewrite({record.split("/", 1)[1]: data}, source=SMALL, keep_all=True), "model",
             message, f"bytecode.pkl: {why}", open_as="runtime")

    # Well-formed code PyTorch 1.13 can load but symbolite cannot run: refused at load too.
    def with_types(instructions, types):
        table = dict(fields)
        table["instructions"] = tuple(instructions)
        table["types"] = tuple(types)
        return dumps((version, (name, tuple(table.items()), schema)))

    context = "__torch__.torch.classes.xnnpack.Conv2dOpContext"
    for case_name, data, message, why in [
        ("verifier_create_object.ptl",
         with_types(replaced(10, ("CREATE_OBJECT", 1, 0)), ["List[int]", context]),
         f"instruction 10 (CREATE_OBJECT 1 0): creates a {context}: custom C++ classes",
         "CREATE_OBJECT of a custom C++ class (torch.classes)"),
        ("verifier_enter.ptl", with_code(replaced(3, ("ENTER", 0, 0))),
         "instruction 3 (ENTER 0 0): an instruction PyTorch 1.13 does not write",
         "a `with` block's ENTER, which PyTorch refuses to export"),
    ]:
        case(case_name, rewrite({record.split("/", 1)[1]: data}, source=SMALL, keep_all=True),
             "unsupported", message, f"bytecode.pkl: {why}", open_as="runtime")


# --- sidecars -------------------------------------------------------------------------------

def varint(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def read_varint(data, at):
    value, shift = 0, 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, at


class Sidecar:
    """Section table of a .symdbg (docs/FORMATS.md); sections are replaced by appending the
    new bytes at the end of the file and pointing the table entry at them."""

    def __init__(self, raw):
        self.raw = bytearray(raw)
        (count,) = struct.unpack_from("<I", raw, 12)
        self.entries = {}
        for i in range(count):
            at = 32 + 24 * i
            kind, _, offset, size = struct.unpack_from("<IIQQ", raw, at)
            self.entries[kind] = (at, offset, size)

    def section(self, kind):
        _, offset, size = self.entries[kind]
        return bytes(self.raw[offset:offset + size])

    def replace(self, kind, data):
        at = self.entries[kind][0]
        struct.pack_into("<QQ", self.raw, at + 8, len(self.raw), len(data))
        self.raw += data

    def set_size(self, kind, size):
        struct.pack_into("<Q", self.raw, self.entries[kind][0] + 16, size)


STRINGS, SOURCES, CALL_STACKS, HANDLES, META = 1, 2, 3, 4, 5


def split_indexed(block):
    (count,) = struct.unpack_from("<I", block, 0)
    offsets = struct.unpack_from(f"<{count + 1}I", block, 4)
    base = 4 + 4 * (count + 1)
    return [block[base + offsets[i]:base + offsets[i + 1]] for i in range(count)]


def join_indexed(records):
    offsets, at = [], 0
    for r in records:
        offsets.append(at)
        at += len(r)
    offsets.append(at)
    return struct.pack(f"<I{len(offsets)}I", len(records), *offsets) + b"".join(records)


def with_callee(record, callee):
    """A call-stack record with its callee field (the last varint) replaced."""
    at = 0
    module_type, at = read_varint(record, at)
    if module_type:
        _, at = read_varint(record, at)
    known, at = read_varint(record, at)
    for _ in range(3 if known else 1):
        _, at = read_varint(record, at)
    _, at = read_varint(record, at)  # function name
    _, end = read_varint(record, at)
    assert end == len(record)
    return record[:at] + varint(callee)


def sidecar_cases():
    raw = SIDECAR.read_bytes()
    s = Sidecar(raw)
    case("sidecar_truncated.symdbg", raw[:len(raw) // 2], "format", "lies outside the file",
         "cut in half: sections past the end", open_as="sidecar")
    case("sidecar_truncated_header.symdbg", raw[:20], "format", "truncated",
         "cut inside the header", open_as="sidecar")

    t = Sidecar(raw)
    _, _, size = t.entries[STRINGS]
    t.set_size(STRINGS, size // 2)
    case("sidecar_truncated_strings.symdbg", bytes(t.raw), "format",
         "deflate stream is truncated", "the string table's deflate stream cut in half",
         open_as="sidecar")

    t = Sidecar(raw)
    section = t.section(CALL_STACKS)
    t.replace(CALL_STACKS, struct.pack("<Q", 1 << 31) + section[8:])
    case("sidecar_inflated_limit.symdbg", bytes(t.raw), "limit",
         "call-stack table of 2147483648 bytes exceeds the limit of 1073741824",
         "the call-stack table claims to inflate to 2 GiB", open_as="sidecar")

    t = Sidecar(raw)
    meta = t.section(META)
    _, rest = read_varint(meta, 0)
    t.replace(META, varint(1_000_000) + meta[rest:])
    case("sidecar_string_id_range.symdbg", bytes(t.raw), "format",
         "string id 1000000 out of range", "the top module type names string 1000000",
         open_as="sidecar")

    # Call stacks 0 -> 1 -> 0: record 1's callee (0) is legal, record 0's (1) is not.
    t = Sidecar(raw)
    section = t.section(CALL_STACKS)
    (inflated_size,) = struct.unpack_from("<Q", section, 0)
    records = split_indexed(zlib.decompress(section[8:], -15))
    assert len(zlib.decompress(section[8:], -15)) == inflated_size and len(records) >= 2
    records[0] = with_callee(records[0], 2)
    records[1] = with_callee(records[1], 1)
    block = join_indexed(records)
    t.replace(CALL_STACKS, struct.pack("<Q", len(block)) + deflate(block))
    case("sidecar_stack_cycle.symdbg", bytes(t.raw), "format",
         "call-stack record 0 refers to later record 1",
         "call stacks 0 and 1 name each other as callee (a cycle)", open_as="sidecar")

    t = Sidecar(raw)
    records[0] = with_callee(records[0], 1)  # itself
    block = join_indexed(records)
    t.replace(CALL_STACKS, struct.pack("<Q", len(block)) + deflate(block))
    case("sidecar_stack_self.symdbg", bytes(t.raw), "format",
         "call-stack record 0 refers to later record 0",
         "call stack 0 names itself as callee", open_as="sidecar")


def control_chars():
    """nested.ptl with the class name "Nested" replaced everywhere (type names, module
    hierarchies, source text) by six bytes a terminal must never see raw: ESC, BEL, NUL, an
    invalid UTF-8 byte. Same length, so every pickle stays valid and the model still loads,
    runs and symbolicates; CLI tests check that every command escapes what it prints. Not a
    refused file, so not in expected.json."""
    import io
    buf = io.BytesIO()
    with zipfile.ZipFile(NESTED) as src, zipfile.ZipFile(buf, "w") as dst:
        for info in src.infolist():
            dst.writestr(info, src.read(info.filename).replace(b"Nested", b"Ne\x1b\x07\x00\xff"))
    (HERE / "control_chars.ptl").write_bytes(buf.getvalue())


def newline_names():
    """nested.ptl with a newline inside names, where the formats allow one: the module
    instance name "level1" (data.pkl, bytecode, call stacks) and the source file name
    (debug records); and, in a second file, inside the operator name "aten::tanh", which
    then has no kernel. Every command must keep each of these names on one line (`\\x0a`):
    CLI tests check no line of any output starts with what follows a newline in a name."""
    for name, replacements in (("newline_names.ptl", ((b"level1", b"le\nel1"), (b"model_defs.py", b"model\ndefs.py"))),
                               ("newline_op.ptl", ((b"aten::tanh", b"aten::t\nnh"),))):
        buf = io.BytesIO()
        with zipfile.ZipFile(NESTED) as src, zipfile.ZipFile(buf, "w") as dst:
            for info in src.infolist():
                data = src.read(info.filename)
                for old, new in replacements:
                    data = data.replace(old, new)
                dst.writestr(info, data)
        (HERE / name).write_bytes(buf.getvalue())


def damaged_record(record, name):
    """nested.ptl whose `record` is damaged (a pickle cut short). Running reads debug records
    only when a failure, profile or delegate call needs them: the model runs, and a failure
    is reported whole with why it is not symbolicated; inspect and symbolicate refuse the
    file. Not in expected.json (running it succeeds)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(NESTED) as src, zipfile.ZipFile(buf, "w") as dst:
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename.endswith("/" + record):
                data = data[: len(data) // 2]
            dst.writestr(info, data)
    (HERE / name).write_bytes(buf.getvalue())


def main():
    for old in HERE.glob("*"):
        if old.suffix in (".ptl", ".zip", ".symdbg"):
            old.unlink()
    zip_cases()
    pickle_cases()
    record_cases()
    verifier_cases()
    sidecar_cases()
    control_chars()
    newline_names()
    damaged_record("callstack_debug_map.pkl", "damaged_call_stacks.ptl")
    damaged_record("mobile_debug_handles.pkl", "damaged_handle_table.ptl")
    (HERE / "expected.json").write_text(json.dumps(cases, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
