//! Classic pcap files (the format tcpdump, tshark, Wireshark and scapy read),
//! link type Ethernet. Written with nanosecond timestamps; read in either
//! resolution and either byte order. Errors name the file and the reason.
use anyhow::{bail, Context, Result};
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

const MAGIC_US: u32 = 0xa1b2_c3d4;
const MAGIC_NS: u32 = 0xa1b2_3c4d;
/// LINKTYPE_ETHERNET.
const LINKTYPE_ETHERNET: u32 = 1;
/// Largest frame we write or accept (a 9018-byte jumbo plus slack).
pub const SNAPLEN: u32 = 65535;

/// Writes frames into a pcap file.
pub struct PcapWriter {
    out: BufWriter<std::fs::File>,
    path: PathBuf,
}

impl PcapWriter {
    /// Creates (truncates) `path` and writes the file header.
    pub fn create(path: &Path) -> Result<PcapWriter> {
        let file = std::fs::File::create(path).with_context(|| format!("{}: cannot create", path.display()))?;
        let mut out = BufWriter::new(file);
        let mut h = Vec::with_capacity(24);
        h.extend_from_slice(&MAGIC_NS.to_le_bytes());
        h.extend_from_slice(&2u16.to_le_bytes());
        h.extend_from_slice(&4u16.to_le_bytes());
        h.extend_from_slice(&0i32.to_le_bytes());
        h.extend_from_slice(&0u32.to_le_bytes());
        h.extend_from_slice(&SNAPLEN.to_le_bytes());
        h.extend_from_slice(&LINKTYPE_ETHERNET.to_le_bytes());
        out.write_all(&h).with_context(|| format!("{}: cannot write", path.display()))?;
        Ok(PcapWriter { out, path: path.to_path_buf() })
    }

    /// Appends one frame captured at `time_ns` nanoseconds.
    pub fn write(&mut self, time_ns: u64, frame: &[u8]) -> Result<()> {
        if frame.len() > SNAPLEN as usize {
            bail!("{}: frame of {} bytes exceeds the snap length {SNAPLEN}", self.path.display(), frame.len());
        }
        let mut r = Vec::with_capacity(16 + frame.len());
        r.extend_from_slice(&((time_ns / 1_000_000_000) as u32).to_le_bytes());
        r.extend_from_slice(&((time_ns % 1_000_000_000) as u32).to_le_bytes());
        r.extend_from_slice(&(frame.len() as u32).to_le_bytes());
        r.extend_from_slice(&(frame.len() as u32).to_le_bytes());
        r.extend_from_slice(frame);
        self.out.write_all(&r).with_context(|| format!("{}: cannot write", self.path.display()))
    }

    /// Flushes and closes the file.
    pub fn finish(mut self) -> Result<()> {
        self.out.flush().with_context(|| format!("{}: cannot write", self.path.display()))
    }
}

/// One record of a pcap file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub time_ns: u64,
    /// Captured bytes (truncated captures are rejected, so this is the frame).
    pub data: Vec<u8>,
}

/// Reads a whole pcap file. A file that is not pcap, not Ethernet, truncated,
/// or holds a record cut by the capture's snap length is an error.
pub fn read(path: &Path) -> Result<Vec<Record>> {
    let name = path.display();
    let mut bytes = vec![];
    BufReader::new(std::fs::File::open(path).with_context(|| format!("{name}: cannot open"))?)
        .read_to_end(&mut bytes)
        .with_context(|| format!("{name}: cannot read"))?;
    if bytes.len() < 24 {
        bail!("{name}: {} bytes is too short for a pcap file header (24)", bytes.len());
    }
    let magic_le = u32::from_le_bytes(bytes[0..4].try_into().unwrap());
    let magic_be = u32::from_be_bytes(bytes[0..4].try_into().unwrap());
    let (big, nanos) = match (magic_le, magic_be) {
        (MAGIC_US, _) => (false, false),
        (MAGIC_NS, _) => (false, true),
        (_, MAGIC_US) => (true, false),
        (_, MAGIC_NS) => (true, true),
        _ => bail!("{name}: not a pcap file (magic {magic_le:#010x}; pcapng is not supported, convert with `editcap -F pcap`)"),
    };
    let u32_at = |b: &[u8], o: usize| {
        let a: [u8; 4] = b[o..o + 4].try_into().unwrap();
        if big {
            u32::from_be_bytes(a)
        } else {
            u32::from_le_bytes(a)
        }
    };
    let linktype = u32_at(&bytes, 20) & 0x0fff_ffff;
    if linktype != LINKTYPE_ETHERNET {
        bail!("{name}: link type {linktype} is not Ethernet (1)");
    }
    let mut records = vec![];
    let mut off = 24;
    while off < bytes.len() {
        let n = records.len();
        if bytes.len() - off < 16 {
            bail!("{name}: record {n} at byte {off}: truncated record header");
        }
        let (sec, frac, incl, orig) =
            (u32_at(&bytes, off), u32_at(&bytes, off + 4), u32_at(&bytes, off + 8) as usize, u32_at(&bytes, off + 12) as usize);
        off += 16;
        if incl > SNAPLEN as usize || bytes.len() - off < incl {
            bail!("{name}: record {n}: {incl} captured bytes, but the file ends after {}", bytes.len() - off);
        }
        if incl != orig {
            bail!("{name}: record {n}: captured {incl} of {orig} bytes (truncated capture; re-capture with -s 0)");
        }
        let time_ns = sec as u64 * 1_000_000_000 + if nanos { frac as u64 } else { frac as u64 * 1000 };
        records.push(Record { time_ns, data: bytes[off..off + incl].to_vec() });
        off += incl;
    }
    Ok(records)
}
