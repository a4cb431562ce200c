package io.rnic.pcap;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Reads packets from a classic pcap file (microsecond or nanosecond magic, either byte order) or a pcapng file
 * (sections in either byte order, interface description blocks with {@code if_tsresol} / {@code if_tsoffset},
 * enhanced and simple packet blocks; other block types are skipped).
 * <pre>{@code
 * try (PcapReader reader = PcapReader.open(path))
 * {
 *     while (reader.next())
 *     {
 *         use(reader.frame(), reader.frameLength(), reader.timestampNs());
 *     }
 * }
 * }</pre>
 * {@link #frame()} is valid until the next call to {@link #next()}: one buffer is reused, grown when a larger
 * record comes. Its capacity is exactly the captured length, the frame starting at index 0. A file that is not a
 * capture, or a record cut short, fails with an {@link IOException} naming the file and the problem.
 */
public final class PcapReader implements AutoCloseable
{
    private static final long[] POWERS_OF_TEN = new long[19];

    static
    {
        POWERS_OF_TEN[0] = 1;
        for (int i = 1; i < POWERS_OF_TEN.length; i++)
        {
            POWERS_OF_TEN[i] = POWERS_OF_TEN[i - 1] * 10;
        }
    }

    private final Path path;
    private final InputStream in;
    private final boolean pcapng;
    private ByteOrder order;
    private long fileOffset;
    private int lastReadCount;

    private final byte[] headerBytes = new byte[PcapFormat.FILE_HEADER_LENGTH];
    private final UnsafeBuffer header = new UnsafeBuffer(headerBytes);
    private byte[] data = new byte[64 * 1024];
    private final UnsafeBuffer body = new UnsafeBuffer(data);
    private final UnsafeBuffer frame = new UnsafeBuffer(new byte[0]);

    // classic pcap
    private boolean nanosecondTimestamps;
    private int fileLinkType;

    // pcapng: the interfaces of the current section
    private int interfaceCount;
    private int[] interfaceLinkType = new int[4];
    private int[] interfaceSnaplen = new int[4];
    private boolean[] interfaceResolutionIsPowerOfTwo = new boolean[4];
    private int[] interfaceResolutionExponent = new int[4];
    private long[] interfaceOffsetSeconds = new long[4];

    private int frameNumber;
    private int frameLength;
    private int originalLength;
    private long timestampNs;
    private int linkType;
    private boolean closed;

    private PcapReader(final Path path, final InputStream in) throws IOException
    {
        this.path = path;
        this.in = in;
        in.mark(8);
        final int n = in.readNBytes(headerBytes, 0, 4);
        in.reset();
        if (n == 0)
        {
            throw new IOException(path + ": empty file, not a pcap or pcapng capture");
        }
        if (n < 4)
        {
            throw new IOException(path + ": " + n + "-byte file, too short to be a pcap or pcapng capture");
        }
        final int magic = header.getInt(0, ByteOrder.BIG_ENDIAN);
        pcapng = magic == PcapFormat.BLOCK_SECTION_HEADER;
        if (!pcapng)
        {
            readClassicHeader(magic);
        }
    }

    /** Opens a capture, reading its file header; the caller closes the reader. */
    public static PcapReader open(final Path path) throws IOException
    {
        final InputStream in = new BufferedInputStream(Files.newInputStream(path), 64 * 1024);
        try
        {
            return new PcapReader(path, in);
        }
        catch (final IOException | RuntimeException ex)
        {
            in.close();
            throw ex;
        }
    }

    /**
     * Advances to the next packet.
     *
     * @return false at the end of the file.
     * @throws IOException if the file is cut short inside a record or a record is malformed.
     */
    public boolean next() throws IOException
    {
        if (closed)
        {
            throw new IOException(path + ": reader is closed");
        }
        return pcapng ? nextBlockPacket() : nextRecord();
    }

    /** The current frame, at index 0 of a buffer whose capacity is {@link #frameLength()}. */
    public DirectBuffer frame()
    {
        return frame;
    }

    /** Bytes captured of the current frame. */
    public int frameLength()
    {
        return frameLength;
    }

    /** Length of the current frame on the wire (at least {@link #frameLength()} in a well-formed capture). */
    public int originalLength()
    {
        return originalLength;
    }

    /** Capture time of the current frame in nanoseconds since the epoch (0 for pcapng simple packet blocks). */
    public long timestampNs()
    {
        return timestampNs;
    }

    /** LINKTYPE_* of the current frame: the file's, or its pcapng interface's ({@link PcapFormat#LINKTYPE_ETHERNET}). */
    public int linkType()
    {
        return linkType;
    }

    /**
     * 1-based number of the current frame among the packets of the file; 0 before the first {@link #next()}.
     * Matches Wireshark's frame numbers except in pcapng files with custom or journal blocks, which it numbers too.
     */
    public int frameNumber()
    {
        return frameNumber;
    }

    public boolean isPcapng()
    {
        return pcapng;
    }

    public Path path()
    {
        return path;
    }

    public void close() throws IOException
    {
        if (!closed)
        {
            closed = true;
            in.close();
        }
    }

    private void readClassicHeader(final int bigEndianMagic) throws IOException
    {
        if (bigEndianMagic == PcapFormat.MAGIC_MICROS || bigEndianMagic == PcapFormat.MAGIC_NANOS)
        {
            order = ByteOrder.BIG_ENDIAN;
        }
        else
        {
            order = ByteOrder.LITTLE_ENDIAN;
        }
        final int magic = header.getInt(0, order);
        if (magic != PcapFormat.MAGIC_MICROS && magic != PcapFormat.MAGIC_NANOS)
        {
            throw new IOException(path + ": not a pcap or pcapng capture (magic " + hex(bigEndianMagic) + ")");
        }
        nanosecondTimestamps = magic == PcapFormat.MAGIC_NANOS;
        if (!readFully(headerBytes, 0, PcapFormat.FILE_HEADER_LENGTH))
        {
            throw truncated("pcap file header", PcapFormat.FILE_HEADER_LENGTH);
        }
        final int major = header.getShort(4, order) & 0xFFFF;
        if (major != 2)
        {
            throw new IOException(path + ": unsupported pcap version " + major + "." +
                (header.getShort(6, order) & 0xFFFF) + " (expected 2.x)");
        }
        fileLinkType = header.getInt(20, order) & 0x03FF_FFFF; // upper bits: FCS length flags
    }

    private boolean nextRecord() throws IOException
    {
        final long recordOffset = fileOffset;
        if (!readRecordStart(headerBytes, PcapFormat.RECORD_HEADER_LENGTH, "record header"))
        {
            return false;
        }
        final long seconds = header.getInt(0, order) & 0xFFFF_FFFFL;
        final long fraction = header.getInt(4, order) & 0xFFFF_FFFFL;
        final int captured = header.getInt(8, order);
        final int original = header.getInt(12, order);
        if (captured < 0 || captured > PcapFormat.MAX_RECORD_LENGTH)
        {
            throw new IOException(path + ": record " + (frameNumber + 1) + " at byte " + recordOffset +
                " claims a captured length of " + Integer.toUnsignedString(captured) + " bytes (corrupt file?)");
        }
        ensureData(captured);
        if (!readFully(data, 0, captured))
        {
            throw truncated("record " + (frameNumber + 1) + " (captured length " + captured + ")", captured);
        }
        frame.wrap(data, 0, captured);
        frameNumber++;
        frameLength = captured;
        originalLength = original;
        timestampNs = seconds * PcapFormat.NANOS_PER_SECOND + (nanosecondTimestamps ? fraction : fraction * 1000);
        linkType = fileLinkType;
        return true;
    }

    private boolean nextBlockPacket() throws IOException
    {
        while (true)
        {
            final long blockOffset = fileOffset;
            if (!readRecordStart(headerBytes, 8, "block header"))
            {
                return false;
            }
            // the section header's type reads the same in both byte orders; it sets the order of what follows
            final int type = header.getInt(0, order == null ? ByteOrder.BIG_ENDIAN : order);
            int consumed = 8;
            if (type == PcapFormat.BLOCK_SECTION_HEADER)
            {
                if (!readFully(headerBytes, 8, 4))
                {
                    throw truncated("section header block", 4);
                }
                consumed = 12;
                final int bom = header.getInt(8, ByteOrder.LITTLE_ENDIAN);
                if (bom == PcapFormat.BYTE_ORDER_MAGIC)
                {
                    order = ByteOrder.LITTLE_ENDIAN;
                }
                else if (bom == Integer.reverseBytes(PcapFormat.BYTE_ORDER_MAGIC))
                {
                    order = ByteOrder.BIG_ENDIAN;
                }
                else
                {
                    throw new IOException(path + ": section header at byte " + blockOffset +
                        " has a bad byte-order magic " + hex(header.getInt(8, ByteOrder.BIG_ENDIAN)));
                }
            }
            else if (order == null)
            {
                throw new IOException(path + ": pcapng file does not start with a section header block");
            }
            final int totalLength = header.getInt(4, order);
            final int minLength = type == PcapFormat.BLOCK_SECTION_HEADER ? 28 : 12;
            if (totalLength < minLength || (totalLength & 3) != 0 || totalLength > PcapFormat.MAX_RECORD_LENGTH)
            {
                throw new IOException(path + ": block of type " + hex(type) + " at byte " + blockOffset +
                    " has an invalid length " + Integer.toUnsignedString(totalLength));
            }
            // data[0 .. remaining) holds the rest of the block, trailing length included
            final int remaining = totalLength - consumed;
            ensureData(remaining);
            if (!readFully(data, 0, remaining))
            {
                throw truncated("block of type " + hex(type) + " at byte " + blockOffset + " (length " +
                    totalLength + ")", remaining);
            }
            final int trailer = body.getInt(remaining - 4, order);
            if (trailer != totalLength)
            {
                throw new IOException(path + ": block at byte " + blockOffset + " has length " + totalLength +
                    " but trailing length " + Integer.toUnsignedString(trailer));
            }
            final int bodyLength = remaining - 4;
            switch (type)
            {
                case PcapFormat.BLOCK_SECTION_HEADER -> readSectionHeader(blockOffset);
                case PcapFormat.BLOCK_INTERFACE_DESCRIPTION -> readInterface(bodyLength, blockOffset);
                case PcapFormat.BLOCK_ENHANCED_PACKET ->
                {
                    readEnhancedPacket(bodyLength, blockOffset);
                    return true;
                }
                case PcapFormat.BLOCK_SIMPLE_PACKET ->
                {
                    readSimplePacket(bodyLength, blockOffset);
                    return true;
                }
                default ->
                {
                    // name resolution, statistics, custom, obsolete packet blocks, ...: not packets we read
                }
            }
        }
    }

    private void readSectionHeader(final long blockOffset) throws IOException
    {
        // data: major(2) minor(2) section length(8) options
        final int major = body.getShort(0, order) & 0xFFFF;
        if (major != 1)
        {
            throw new IOException(path + ": section header at byte " + blockOffset + " has unsupported pcapng version " +
                major + "." + (body.getShort(2, order) & 0xFFFF));
        }
        interfaceCount = 0;
    }

    private void readInterface(final int bodyLength, final long blockOffset) throws IOException
    {
        // data: link type(2) reserved(2) snaplen(4) options
        if (bodyLength < 8)
        {
            throw new IOException(path + ": interface description block at byte " + blockOffset + " is too short");
        }
        if (interfaceCount == interfaceLinkType.length)
        {
            final int n = interfaceCount * 2;
            interfaceLinkType = Arrays.copyOf(interfaceLinkType, n);
            interfaceSnaplen = Arrays.copyOf(interfaceSnaplen, n);
            interfaceResolutionIsPowerOfTwo = Arrays.copyOf(interfaceResolutionIsPowerOfTwo, n);
            interfaceResolutionExponent = Arrays.copyOf(interfaceResolutionExponent, n);
            interfaceOffsetSeconds = Arrays.copyOf(interfaceOffsetSeconds, n);
        }
        final int id = interfaceCount;
        interfaceLinkType[id] = body.getShort(0, order) & 0xFFFF;
        interfaceSnaplen[id] = body.getInt(4, order);
        interfaceResolutionIsPowerOfTwo[id] = false;
        interfaceResolutionExponent[id] = 6;
        interfaceOffsetSeconds[id] = 0;

        int p = 8;
        while (p + 4 <= bodyLength)
        {
            final int code = body.getShort(p, order) & 0xFFFF;
            final int length = body.getShort(p + 2, order) & 0xFFFF;
            if (code == PcapFormat.OPTION_END)
            {
                break;
            }
            if (p + 4 + length > bodyLength)
            {
                throw new IOException(path + ": interface description block at byte " + blockOffset + ": option " +
                    code + " of length " + length + " runs past the end of the block");
            }
            if (code == PcapFormat.OPTION_IF_TSRESOL && length >= 1)
            {
                final int resolution = body.getByte(p + 4) & 0xFF;
                final boolean powerOfTwo = (resolution & 0x80) != 0;
                final int exponent = resolution & 0x7F;
                if (powerOfTwo ? exponent > 63 : exponent > 18)
                {
                    throw new IOException(path + ": interface " + id + " has an unsupported if_tsresol " +
                        hex(resolution));
                }
                interfaceResolutionIsPowerOfTwo[id] = powerOfTwo;
                interfaceResolutionExponent[id] = exponent;
            }
            else if (code == PcapFormat.OPTION_IF_TSOFFSET && length >= 8)
            {
                interfaceOffsetSeconds[id] = body.getLong(p + 4, order);
            }
            p += 4 + ((length + 3) & ~3);
        }
        interfaceCount++;
    }

    private void readEnhancedPacket(final int bodyLength, final long blockOffset) throws IOException
    {
        // data: interface(4) timestamp high(4) low(4) captured(4) original(4) packet data, padded; options
        if (bodyLength < 20)
        {
            throw new IOException(path + ": enhanced packet block at byte " + blockOffset + " is too short");
        }
        final int id = checkInterface(body.getInt(0, order), blockOffset);
        final long timestamp = (body.getInt(4, order) & 0xFFFF_FFFFL) << 32 | (body.getInt(8, order) & 0xFFFF_FFFFL);
        final int captured = body.getInt(12, order);
        if (captured < 0 || captured > bodyLength - 20)
        {
            throw new IOException(path + ": enhanced packet block at byte " + blockOffset + " claims " +
                Integer.toUnsignedString(captured) + " captured bytes but holds at most " + (bodyLength - 20));
        }
        setPacket(id, 20, captured, body.getInt(16, order), toNanos(id, timestamp));
    }

    private void readSimplePacket(final int bodyLength, final long blockOffset) throws IOException
    {
        // data: original length(4) packet data, padded
        if (bodyLength < 4)
        {
            throw new IOException(path + ": simple packet block at byte " + blockOffset + " is too short");
        }
        final int id = checkInterface(0, blockOffset);
        final int original = body.getInt(0, order);
        int captured = bodyLength - 4;
        if (Integer.compareUnsigned(original, captured) < 0)
        {
            captured = original;
        }
        final int snaplen = interfaceSnaplen[id];
        if (snaplen > 0 && captured > snaplen)
        {
            captured = snaplen;
        }
        setPacket(id, 4, captured, original, 0);
    }

    private int checkInterface(final int id, final long blockOffset) throws IOException
    {
        if (id < 0 || id >= interfaceCount)
        {
            throw new IOException(path + ": packet block at byte " + blockOffset + " refers to interface " +
                Integer.toUnsignedString(id) + " but the section describes " + interfaceCount + " interface(s)");
        }
        return id;
    }

    private void setPacket(final int id, final int dataOffset, final int captured, final int original, final long ns)
    {
        frame.wrap(data, dataOffset, captured);
        frameNumber++;
        frameLength = captured;
        originalLength = original;
        timestampNs = ns;
        linkType = interfaceLinkType[id];
    }

    private long toNanos(final int id, final long timestamp)
    {
        final int exponent = interfaceResolutionExponent[id];
        final long offsetNs = interfaceOffsetSeconds[id] * PcapFormat.NANOS_PER_SECOND;
        if (!interfaceResolutionIsPowerOfTwo[id])
        {
            if (exponent <= 9)
            {
                return timestamp * POWERS_OF_TEN[9 - exponent] + offsetNs;
            }
            return Long.divideUnsigned(timestamp, POWERS_OF_TEN[exponent - 9]) + offsetNs;
        }
        final long seconds = timestamp >>> exponent;
        long fraction = exponent == 0 ? 0 : timestamp & (-1L >>> (64 - exponent));
        int shift = exponent;
        if (shift > 33) // keep fraction * 10^9 within 63 bits
        {
            fraction >>>= shift - 33;
            shift = 33;
        }
        return seconds * PcapFormat.NANOS_PER_SECOND + ((fraction * PcapFormat.NANOS_PER_SECOND) >>> shift) + offsetNs;
    }

    /** Reads the start of a record: false on a clean end of file, an exception if it ends part way. */
    private boolean readRecordStart(final byte[] into, final int length, final String what) throws IOException
    {
        if (readFully(into, 0, length))
        {
            return true;
        }
        if (lastReadCount == 0)
        {
            return false;
        }
        throw truncated(what, length);
    }

    /** Reads exactly {@code length} bytes, or returns false having read {@link #lastReadCount} at the end of file. */
    private boolean readFully(final byte[] into, final int offset, final int length) throws IOException
    {
        final int n = in.readNBytes(into, offset, length);
        fileOffset += n;
        lastReadCount = n;
        return n == length;
    }

    private IOException truncated(final String what, final int wanted)
    {
        return new IOException(path + ": truncated " + what + ": the file ends after " + lastReadCount + " of " +
            wanted + " bytes (at byte " + fileOffset + ", after " + frameNumber + " complete frame(s))");
    }

    private void ensureData(final int length)
    {
        if (length > data.length)
        {
            data = new byte[Math.max(length, Math.min(PcapFormat.MAX_RECORD_LENGTH, data.length * 2))];
            body.wrap(data);
        }
    }

    private static String hex(final int value)
    {
        return String.format("0x%08x", value);
    }
}
