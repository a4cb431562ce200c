package io.rnic.pcap;

/**
 * Constants of the capture formats read and written here: classic libpcap files and pcapng
 * (<a href="https://www.ietf.org/archive/id/draft-ietf-opsawg-pcapng-02.html">draft-ietf-opsawg-pcapng</a>).
 */
public final class PcapFormat
{
    /** Classic pcap, microsecond timestamps, as read in the writer's byte order. */
    public static final int MAGIC_MICROS = 0xa1b2c3d4;
    /** Classic pcap, nanosecond timestamps, as read in the writer's byte order. */
    public static final int MAGIC_NANOS = 0xa1b23c4d;
    public static final int FILE_HEADER_LENGTH = 24;
    public static final int RECORD_HEADER_LENGTH = 16;
    /** libpcap's default and maximum snapshot length for ordinary link types. */
    public static final int SNAPLEN = 262_144;

    /** pcapng block types; the section header's type reads the same in both byte orders. */
    public static final int BLOCK_SECTION_HEADER = 0x0A0D0D0A;
    public static final int BLOCK_INTERFACE_DESCRIPTION = 0x00000001;
    public static final int BLOCK_SIMPLE_PACKET = 0x00000003;
    public static final int BLOCK_ENHANCED_PACKET = 0x00000006;
    public static final int BYTE_ORDER_MAGIC = 0x1A2B3C4D;
    public static final int OPTION_END = 0;
    public static final int OPTION_IF_TSRESOL = 9;
    public static final int OPTION_IF_TSOFFSET = 14;

    public static final int LINKTYPE_ETHERNET = 1;

    /** Longest record or block this reader accepts; anything longer is treated as a corrupt length field. */
    public static final int MAX_RECORD_LENGTH = 16 * 1024 * 1024;

    public static final long NANOS_PER_SECOND = 1_000_000_000L;

    private PcapFormat()
    {
    }
}
