//! Vault Agent's patch: the wasm build packs postings with the simple variants, the native build
//! with the unrolled (SSE3 / NEON / scalar) ones, and an index written by one is read by the
//! other, so both must write the same bytes and read each other's. Upstream tests the unrolled
//! variants against each other only.

use crate::BitPacker;

/// A deterministic xorshift stream of values below `2^num_bits`.
fn values(len: usize, num_bits: u8, seed: u64) -> Vec<u32> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let mask = if num_bits >= 32 { u32::MAX } else { (1u32 << num_bits) - 1 };
            (state >> 16) as u32 & mask
        })
        .collect()
}

/// A sorted block whose gaps need `num_bits` bits, starting after `initial`.
fn sorted(len: usize, num_bits: u8, initial: u32, strictly: bool) -> Vec<u32> {
    let mut current = initial;
    values(len, num_bits, u64::from(num_bits) + 101)
        .into_iter()
        .map(|gap| {
            current = current.wrapping_add(gap).wrapping_add(u32::from(strictly));
            current
        })
        .collect()
}

/// Every operation of `Unrolled` and `Simple`, for every bit width: the same widths, the same
/// bytes, and each decodes what the other wrote.
fn check<Unrolled: BitPacker, Simple: BitPacker>(unrolled: Unrolled, simple: Simple) {
    let len = Unrolled::BLOCK_LEN;
    assert_eq!(len, Simple::BLOCK_LEN);
    for num_bits in 0..=32u8 {
        let size = Unrolled::compressed_block_size(num_bits);
        assert_eq!(size, Simple::compressed_block_size(num_bits));
        let (mut left, mut right) = (vec![0u8; size], vec![0u8; size]);
        let (mut out_left, mut out_right) = (vec![0u32; len], vec![0u32; len]);

        let plain = values(len, num_bits, u64::from(num_bits));
        assert_eq!(unrolled.num_bits(&plain), simple.num_bits(&plain), "{num_bits} bits");
        assert_eq!(unrolled.compress(&plain, &mut left, num_bits), size);
        assert_eq!(simple.compress(&plain, &mut right, num_bits), size);
        assert_eq!(left, right, "compress, {num_bits} bits");
        unrolled.decompress(&right, &mut out_left, num_bits);
        simple.decompress(&left, &mut out_right, num_bits);
        assert_eq!((&out_left, &out_right), (&plain, &plain), "decompress, {num_bits} bits");

        let initial = 1_000 * u32::from(num_bits);
        let gaps = sorted(len, num_bits, initial, false);
        let width = unrolled.num_bits_sorted(initial, &gaps);
        assert_eq!(width, simple.num_bits_sorted(initial, &gaps), "{num_bits} bits, sorted");
        let size = Unrolled::compressed_block_size(width);
        let (mut left, mut right) = (vec![0u8; size], vec![0u8; size]);
        unrolled.compress_sorted(initial, &gaps, &mut left, width);
        simple.compress_sorted(initial, &gaps, &mut right, width);
        assert_eq!(left, right, "compress_sorted, {num_bits} bits");
        unrolled.decompress_sorted(initial, &right, &mut out_left, width);
        simple.decompress_sorted(initial, &left, &mut out_right, width);
        assert_eq!((&out_left, &out_right), (&gaps, &gaps), "decompress_sorted, {num_bits} bits");

        for initial in [None, Some(initial)] {
            let start = initial.unwrap_or(u32::MAX);
            let strict = sorted(len, num_bits.min(31), start, true);
            let width = unrolled.num_bits_strictly_sorted(initial, &strict);
            assert_eq!(width, simple.num_bits_strictly_sorted(initial, &strict));
            let size = Unrolled::compressed_block_size(width);
            let (mut left, mut right) = (vec![0u8; size], vec![0u8; size]);
            unrolled.compress_strictly_sorted(initial, &strict, &mut left, width);
            simple.compress_strictly_sorted(initial, &strict, &mut right, width);
            assert_eq!(left, right, "compress_strictly_sorted, {num_bits} bits");
            unrolled.decompress_strictly_sorted(initial, &right, &mut out_left, width);
            simple.decompress_strictly_sorted(initial, &left, &mut out_right, width);
            assert_eq!((&out_left, &out_right), (&strict, &strict), "{num_bits} bits, strictly");
        }
    }
}

#[test]
fn bitpacker4x_simple_writes_and_reads_the_unrolled_bytes() {
    check(crate::bitpacker4x::BitPacker4x::new(), crate::bitpacker4x_simple::BitPacker4x::new());
}

#[test]
fn bitpacker1x_simple_writes_and_reads_the_unrolled_bytes() {
    check(crate::bitpacker1x::BitPacker1x::new(), crate::bitpacker1x_simple::BitPacker1x::new());
}
