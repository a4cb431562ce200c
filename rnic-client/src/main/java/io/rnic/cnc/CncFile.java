package io.rnic.cnc;

import org.agrona.BitUtil;
import org.agrona.IoUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.broadcast.BroadcastBufferDescriptor;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.agrona.concurrent.status.CountersReader;

import java.io.File;
import java.nio.MappedByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The driver's command-and-control file ({@code cnc.dat} in the driver's directory), laid out as Aeron's CnC file:
 * a header, then the command ring clients write into (Agrona {@code ManyToOneRingBuffer}), the broadcast buffer the
 * driver answers through, the counters (Agrona {@code CountersManager} metadata and values), the driver's distinct
 * error log, and a block of device information for {@code devinfo}. The driver writes {@link #VERSION} last, once
 * every section is ready: a reader that sees another value must wait or give up, never read on.
 *
 * <pre>
 *   0  int  magic "RNIC"         4  int  version (written last)
 *   8  long driver pid          16  long start time (epoch ms)
 *  24  long client liveness timeout (ns)
 *  32  int  to-driver ring length     36  int  to-clients buffer length
 *  40  int  counters metadata length  44  int  counters values length
 *  48  int  error log length          52  int  device info length
 *  64  long driver heartbeat (epoch ms), alone on its cache line
 * 128  sections, in that order, each 64-byte aligned
 * </pre>
 */
public final class CncFile implements AutoCloseable
{
    public static final String FILE_NAME = "cnc.dat";
    public static final int MAGIC = 0x43494e52; // "RNIC" little-endian
    /**
     * 2: the send rings carry a memory window bind's fields (a client of version 1 would misread them). 3: errors
     * carry an errno before their message, and a client opens its asynchronous event ring at attach (SRQs). 4: typed
     * commands and answers ({@code io.rnic.cnc.command}), ibverbs' values for QP types and path MTUs, an attach that
     * names its protocol version, and an event ring that carries CM id changes too, pushed (no {@code CM_POLL}).
     */
    public static final int VERSION = 4;

    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = 4;
    static final int PID_OFFSET = 8;
    static final int START_TIME_OFFSET = 16;
    static final int CLIENT_TIMEOUT_OFFSET = 24;
    static final int TO_DRIVER_LENGTH_OFFSET = 32;
    static final int TO_CLIENTS_LENGTH_OFFSET = 36;
    static final int COUNTERS_METADATA_LENGTH_OFFSET = 40;
    static final int COUNTERS_VALUES_LENGTH_OFFSET = 44;
    static final int ERROR_LOG_LENGTH_OFFSET = 48;
    static final int DEVICE_INFO_LENGTH_OFFSET = 52;
    static final int HEARTBEAT_OFFSET = 64;
    static final int HEADER_LENGTH = 128;

    /** Sizes of the sections, as the driver chose them. */
    public record Lengths(
        int toDriverCapacity, int toClientsCapacity, int maxCounters, int errorLogLength, int deviceInfoLength)
    {
        public static Lengths defaults()
        {
            return new Lengths(1 << 20, 1 << 20, 32768, 1 << 20, 1 << 16); // room for 5 counters of ~6 000 QPs
        }

        int toDriverLength()
        {
            return toDriverCapacity + RingBufferDescriptor.TRAILER_LENGTH;
        }

        int toClientsLength()
        {
            return toClientsCapacity + BroadcastBufferDescriptor.TRAILER_LENGTH;
        }

        int countersMetadataLength()
        {
            return maxCounters * CountersReader.METADATA_LENGTH;
        }

        int countersValuesLength()
        {
            return maxCounters * CountersReader.COUNTER_LENGTH;
        }
    }

    private final MappedByteBuffer mapped;
    private final UnsafeBuffer header;
    private final UnsafeBuffer toDriver;
    private final UnsafeBuffer toClients;
    private final UnsafeBuffer countersMetadata;
    private final UnsafeBuffer countersValues;
    private final UnsafeBuffer errorLog;
    private final UnsafeBuffer deviceInfo;
    private boolean closed;

    private CncFile(final MappedByteBuffer mapped)
    {
        this.mapped = mapped;
        this.header = new UnsafeBuffer(mapped, 0, HEADER_LENGTH);
        int offset = HEADER_LENGTH;
        toDriver = section(offset, header.getInt(TO_DRIVER_LENGTH_OFFSET));
        offset = next(offset, toDriver);
        toClients = section(offset, header.getInt(TO_CLIENTS_LENGTH_OFFSET));
        offset = next(offset, toClients);
        countersMetadata = section(offset, header.getInt(COUNTERS_METADATA_LENGTH_OFFSET));
        offset = next(offset, countersMetadata);
        countersValues = section(offset, header.getInt(COUNTERS_VALUES_LENGTH_OFFSET));
        offset = next(offset, countersValues);
        errorLog = section(offset, header.getInt(ERROR_LOG_LENGTH_OFFSET));
        offset = next(offset, errorLog);
        deviceInfo = section(offset, header.getInt(DEVICE_INFO_LENGTH_OFFSET));
    }

    private UnsafeBuffer section(final int offset, final int length)
    {
        if (length < 0 || (long)offset + length > mapped.capacity())
        {
            throw new CncException("the CnC file is damaged (a section runs past its end): stop the driver and " +
                "delete the directory");
        }
        return new UnsafeBuffer(mapped, offset, length);
    }

    private static int next(final int offset, final UnsafeBuffer section)
    {
        return BitUtil.align(offset + section.capacity(), BitUtil.CACHE_LINE_LENGTH);
    }

    static long fileLength(final Lengths lengths)
    {
        long length = HEADER_LENGTH;
        for (final int each : new int[]{ lengths.toDriverLength(), lengths.toClientsLength(),
            lengths.countersMetadataLength(), lengths.countersValuesLength(), lengths.errorLogLength(),
            lengths.deviceInfoLength() })
        {
            length = BitUtil.align(length + each, BitUtil.CACHE_LINE_LENGTH);
        }
        return length;
    }

    /**
     * The driver's side: a new CnC file in {@code directory} (which must exist), sections zeroed, header written
     * except {@link #VERSION}, which {@link #markReady()} writes once the driver serves.
     */
    public static CncFile create(final Path directory, final Lengths lengths, final long clientTimeoutNs)
    {
        if (!BitUtil.isPowerOfTwo(lengths.toDriverCapacity()) || !BitUtil.isPowerOfTwo(lengths.toClientsCapacity()))
        {
            throw new IllegalArgumentException("CnC ring capacities must be powers of two: " + lengths);
        }
        final File file = directory.resolve(FILE_NAME).toFile();
        final MappedByteBuffer mapped = IoUtil.mapNewFile(file, fileLength(lengths), true);
        try
        {
            // clients write commands into it: the driver's group may, others may not (the directory is 0770 too)
            Files.setPosixFilePermissions(file.toPath(), PosixFilePermissions.fromString("rw-rw----"));
        }
        catch (final java.io.IOException ex)
        {
            IoUtil.unmap(mapped);
            throw new CncException("cannot set the permissions of " + file + ": " + ex.getMessage());
        }
        final UnsafeBuffer header = new UnsafeBuffer(mapped, 0, HEADER_LENGTH);
        header.putInt(MAGIC_OFFSET, MAGIC);
        header.putLong(PID_OFFSET, ProcessHandle.current().pid());
        header.putLong(START_TIME_OFFSET, System.currentTimeMillis());
        header.putLong(CLIENT_TIMEOUT_OFFSET, clientTimeoutNs);
        header.putInt(TO_DRIVER_LENGTH_OFFSET, lengths.toDriverLength());
        header.putInt(TO_CLIENTS_LENGTH_OFFSET, lengths.toClientsLength());
        header.putInt(COUNTERS_METADATA_LENGTH_OFFSET, lengths.countersMetadataLength());
        header.putInt(COUNTERS_VALUES_LENGTH_OFFSET, lengths.countersValuesLength());
        header.putInt(ERROR_LOG_LENGTH_OFFSET, lengths.errorLogLength());
        header.putInt(DEVICE_INFO_LENGTH_OFFSET, lengths.deviceInfoLength());
        header.putLongVolatile(HEARTBEAT_OFFSET, System.currentTimeMillis());
        return new CncFile(mapped);
    }

    /**
     * A client's or a reader's side: maps {@code directory/cnc.dat} of a running driver.
     *
     * @throws CncException with one line naming the fix when there is no driver, or it is not ready.
     */
    public static CncFile open(final Path directory)
    {
        final Path path = directory.resolve(FILE_NAME);
        if (!Files.exists(path))
        {
            throw new CncException("no rnic driver at " + directory + " (no " + FILE_NAME + "): start one with " +
                "bin/rnic driver -d IFACE --dir " + directory);
        }
        final MappedByteBuffer mapped;
        try
        {
            mapped = IoUtil.mapExistingFile(path.toFile(), FILE_NAME);
        }
        catch (final RuntimeException ex)
        {
            throw new CncException("cannot map " + path + ": " + ex.getMessage() +
                " (run as the driver's user or group)");
        }
        if (mapped.capacity() < HEADER_LENGTH)
        {
            IoUtil.unmap(mapped);
            throw new CncException(path + " is too short to be an rnic CnC file: is the driver still starting?");
        }
        final UnsafeBuffer header = new UnsafeBuffer(mapped, 0, HEADER_LENGTH);
        final int version = header.getIntVolatile(VERSION_OFFSET);
        if (header.getInt(MAGIC_OFFSET) != MAGIC || version == 0)
        {
            IoUtil.unmap(mapped);
            throw new CncException(path + " is not ready (version " + version + "): the driver is starting; try " +
                "again once it serves");
        }
        if (version != VERSION)
        {
            IoUtil.unmap(mapped);
            throw new CncException(versionMismatch(path, version));
        }
        return new CncFile(mapped);
    }

    /** The one line refusing a CnC file of protocol version {@code version}: both versions, and what to do. */
    static String versionMismatch(final Path path, final int version)
    {
        return path + " is of protocol version " + version + ", this rnic speaks version " + VERSION + ": use the " +
            "rnic build of the driver, or restart the driver from this build (bin/rnic driver)";
    }

    /** The driver's last step of start-up: clients may attach from now on. */
    public void markReady()
    {
        header.putIntOrdered(VERSION_OFFSET, VERSION);
    }

    public long driverPid()
    {
        return header.getLong(PID_OFFSET);
    }

    public long startTimeMs()
    {
        return header.getLong(START_TIME_OFFSET);
    }

    public long clientTimeoutNs()
    {
        return header.getLong(CLIENT_TIMEOUT_OFFSET);
    }

    /** The driver's last sign of life (epoch ms), written by its conductor every few ms. */
    public long heartbeatMs()
    {
        return header.getLongVolatile(HEARTBEAT_OFFSET);
    }

    public void heartbeat(final long nowMs)
    {
        header.putLongOrdered(HEARTBEAT_OFFSET, nowMs);
    }

    /** Commands from clients to the driver (a {@code ManyToOneRingBuffer}). */
    public AtomicBuffer toDriverBuffer()
    {
        return toDriver;
    }

    /** Responses from the driver to every client (a broadcast buffer; clients keep what names them). */
    public AtomicBuffer toClientsBuffer()
    {
        return toClients;
    }

    public AtomicBuffer countersMetadataBuffer()
    {
        return countersMetadata;
    }

    public AtomicBuffer countersValuesBuffer()
    {
        return countersValues;
    }

    /** The driver's errors, each once with its count ({@code DistinctErrorLog}). */
    public AtomicBuffer errorLogBuffer()
    {
        return errorLog;
    }

    /** What {@code devinfo} prints ({@link DeviceInfo}). */
    public AtomicBuffer deviceInfoBuffer()
    {
        return deviceInfo;
    }

    public void close()
    {
        if (!closed)
        {
            closed = true;
            IoUtil.unmap(mapped);
        }
    }
}
