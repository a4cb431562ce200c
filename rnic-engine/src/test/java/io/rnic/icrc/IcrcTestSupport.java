package io.rnic.icrc;

import org.agrona.concurrent.UnsafeBuffer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.zip.CRC32;

/** Shared by the ICRC tests: an independent reference, the buffer kinds, the vectors folder. */
final class IcrcTestSupport
{
    static final String VECTORS_DIR_PROP_NAME = "rnic.vectors.dir";

    private IcrcTestSupport()
    {
    }

    /**
     * The rule written out independently of the production code: copy behind 8 bytes of 0xFF, set the variant
     * fields to ones (IPv6 bytes 0..3 ORed with 0F FF FF FF), {@link CRC32} over the copy.
     */
    static int referenceIcrc(final byte[] region, final boolean ipv6)
    {
        final byte[] copy = new byte[8 + region.length];
        java.util.Arrays.fill(copy, 0, 8, (byte)0xFF);
        System.arraycopy(region, 0, copy, 8, region.length);
        final int[] ones = ipv6 ? new int[]{ 1, 2, 3, 7, 40 + 6, 40 + 7, 48 + 4 } : new int[]{ 1, 8, 10, 11, 26, 27, 32 };
        for (final int i : ones)
        {
            if (i < region.length)
            {
                copy[8 + i] = (byte)0xFF;
            }
        }
        if (ipv6 && region.length > 0)
        {
            copy[8] |= 0x0F;
        }
        final CRC32 crc = new CRC32();
        crc.update(copy);
        return (int)crc.getValue();
    }

    /** The kinds of memory a packet can be in, each as an Agrona {@link UnsafeBuffer}. */
    enum Kind
    {
        HEAP_ARRAY,
        HEAP_BYTE_BUFFER_SLICE,
        DIRECT_BYTE_BUFFER,
        RAW_ADDRESS;

        UnsafeBuffer allocate(final int capacity, final Arena arena)
        {
            return switch (this)
            {
                case HEAP_ARRAY -> new UnsafeBuffer(new byte[capacity]);
                case HEAP_BYTE_BUFFER_SLICE -> new UnsafeBuffer(ByteBuffer.wrap(new byte[capacity + 3], 3, capacity).slice());
                case DIRECT_BYTE_BUFFER -> new UnsafeBuffer(ByteBuffer.allocateDirect(capacity));
                case RAW_ADDRESS ->
                {
                    final MemorySegment segment = arena.allocate(capacity, 64);
                    yield new UnsafeBuffer(segment.address(), capacity);
                }
            };
        }
    }

    /** shared/vectors/ beside the repository, or {@code -Drnic.vectors.dir}; fails the test when missing. */
    static Path vectorsDir()
    {
        final String configured = System.getProperty(VECTORS_DIR_PROP_NAME);
        if (configured != null && !configured.isBlank())
        {
            final Path path = Paths.get(configured);
            if (Files.isRegularFile(path.resolve("vectors.jsonl")))
            {
                return path;
            }
            throw new AssertionError("-D" + VECTORS_DIR_PROP_NAME + "=" + configured + " has no vectors.jsonl");
        }
        final Path cwd = Paths.get(System.getProperty("user.dir")).toAbsolutePath();
        for (final String candidate : new String[]{ "../../shared/vectors", "../shared/vectors" })
        {
            final Path path = cwd.resolve(candidate).normalize();
            if (Files.isRegularFile(path.resolve("vectors.jsonl")))
            {
                return path;
            }
        }
        throw new AssertionError("test vectors not found: looked for ../../shared/vectors and ../shared/vectors from " +
            cwd + "; set -D" + VECTORS_DIR_PROP_NAME + "=/path/to/shared/vectors");
    }
}
