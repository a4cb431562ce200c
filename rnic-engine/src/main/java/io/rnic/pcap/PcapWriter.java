package io.rnic.pcap;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

import static java.nio.ByteOrder.LITTLE_ENDIAN;
import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.TRUNCATE_EXISTING;
import static java.nio.file.StandardOpenOption.WRITE;

/**
 * Writes a classic pcap file: link type Ethernet, nanosecond timestamps (magic {@code 0xa1b23c4d}), snaplen
 * 262144, little-endian. Frames are copied into a preallocated direct staging buffer which is written to the
 * file when full and on {@link #flush()} / {@link #close()}; {@link #write} allocates nothing.
 * <p>
 * Single-threaded: one writer per thread (it is meant to sit beside the datapath). I/O errors after opening are
 * reported as {@link UncheckedIOException} naming the file.
 */
public final class PcapWriter implements AutoCloseable
{
    public static final int DEFAULT_STAGING_CAPACITY = 1024 * 1024;

    private final Path path;
    private final FileChannel channel;
    private final ByteBuffer staging;
    private final UnsafeBuffer stagingBuffer;
    private int position;
    private long framesWritten;
    private boolean closed;

    public PcapWriter(final Path path) throws IOException
    {
        this(path, DEFAULT_STAGING_CAPACITY);
    }

    /**
     * @param path             file to create (truncated if it exists).
     * @param stagingCapacity  bytes staged before a write to the file; at least one full record (16 + 262144).
     */
    public PcapWriter(final Path path, final int stagingCapacity) throws IOException
    {
        if (stagingCapacity < PcapFormat.RECORD_HEADER_LENGTH + PcapFormat.SNAPLEN)
        {
            throw new IllegalArgumentException("staging capacity " + stagingCapacity + " is smaller than one record (" +
                (PcapFormat.RECORD_HEADER_LENGTH + PcapFormat.SNAPLEN) + ")");
        }
        this.path = path;
        this.staging = ByteBuffer.allocateDirect(stagingCapacity);
        this.stagingBuffer = new UnsafeBuffer(staging);
        this.channel = FileChannel.open(path, CREATE, TRUNCATE_EXISTING, WRITE);

        stagingBuffer.putInt(0, PcapFormat.MAGIC_NANOS, LITTLE_ENDIAN);
        stagingBuffer.putShort(4, (short)2, LITTLE_ENDIAN); // version 2.4
        stagingBuffer.putShort(6, (short)4, LITTLE_ENDIAN);
        stagingBuffer.putInt(8, 0, LITTLE_ENDIAN); // thiszone
        stagingBuffer.putInt(12, 0, LITTLE_ENDIAN); // sigfigs
        stagingBuffer.putInt(16, PcapFormat.SNAPLEN, LITTLE_ENDIAN);
        stagingBuffer.putInt(20, PcapFormat.LINKTYPE_ETHERNET, LITTLE_ENDIAN);
        position = PcapFormat.FILE_HEADER_LENGTH;
    }

    /**
     * Appends one frame as it is. A frame longer than the snaplen is cut to 262144 bytes, its original length kept.
     *
     * @param frame       buffer holding the frame.
     * @param offset      where the frame starts in {@code frame}.
     * @param length      length of the frame on the wire.
     * @param timestampNs time since the epoch in nanoseconds (seconds are stored as unsigned 32 bits).
     */
    public void write(final DirectBuffer frame, final int offset, final int length, final long timestampNs)
    {
        if (closed)
        {
            throw new IllegalStateException(path + ": pcap writer is closed");
        }
        if (length < 0)
        {
            throw new IllegalArgumentException(path + ": negative frame length " + length);
        }
        final int captured = Math.min(length, PcapFormat.SNAPLEN);
        if (position + PcapFormat.RECORD_HEADER_LENGTH + captured > stagingBuffer.capacity())
        {
            writeStaged();
        }
        final int p = position;
        stagingBuffer.putInt(p, (int)Math.floorDiv(timestampNs, PcapFormat.NANOS_PER_SECOND), LITTLE_ENDIAN);
        stagingBuffer.putInt(p + 4, (int)Math.floorMod(timestampNs, PcapFormat.NANOS_PER_SECOND), LITTLE_ENDIAN);
        stagingBuffer.putInt(p + 8, captured, LITTLE_ENDIAN);
        stagingBuffer.putInt(p + 12, length, LITTLE_ENDIAN);
        stagingBuffer.putBytes(p + PcapFormat.RECORD_HEADER_LENGTH, frame, offset, captured);
        position = p + PcapFormat.RECORD_HEADER_LENGTH + captured;
        framesWritten++;
    }

    /** Writes the staged records to the file (to the operating system; no fsync). */
    public void flush()
    {
        if (!closed)
        {
            writeStaged();
        }
    }

    public long framesWritten()
    {
        return framesWritten;
    }

    public Path path()
    {
        return path;
    }

    /** Flushes and closes the file; closing again does nothing. */
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        try (FileChannel ignored = channel)
        {
            writeStaged();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(path + ": cannot close pcap file", ex);
        }
    }

    private void writeStaged()
    {
        staging.limit(position).position(0);
        try
        {
            while (staging.hasRemaining())
            {
                channel.write(staging);
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(path + ": cannot write pcap file", ex);
        }
        staging.clear();
        position = 0;
    }
}
