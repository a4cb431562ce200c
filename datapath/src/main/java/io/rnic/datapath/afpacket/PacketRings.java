package io.rnic.datapath.afpacket;

import io.rnic.datapath.port.PortException;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static io.rnic.datapath.afpacket.LinuxPacketSockets.*;

/**
 * The RX and TX rings of one AF_PACKET socket (PACKET_MMAP, TPACKET_V2), mapped as one region, RX first: the kernel
 * sizes both rings at {@code setsockopt} time and the one {@code mmap} of the socket returns them back to back. Set
 * up and torn down here, apart from the port, because the mapping outlives any one step of opening the port and must
 * be unmapped on every failure after it. The port reads and writes the slots through {@link #rx} and {@link #tx}.
 */
final class PacketRings
{
    /** Room before the frame in an RX slot: the header, the sockaddr_ll and the kernel's alignment. */
    private static final int SLOT_HEADROOM = 128;

    private final MemorySegment memory;
    private final long bytes;
    private final UnsafeBuffer rx;
    private final UnsafeBuffer tx;

    private PacketRings(final MemorySegment memory, final long rxBytes, final long txBytes)
    {
        this.memory = memory;
        this.bytes = rxBytes + txBytes;
        this.rx = new UnsafeBuffer(memory.address(), (int)rxBytes);
        this.tx = new UnsafeBuffer(memory.address() + rxBytes, (int)txBytes);
    }

    /** The size of a ring slot (a power of two, at least 2048) for frames of up to {@code maxFrameLength} bytes. */
    static int frameSize(final int maxFrameLength)
    {
        return Math.max(2048, Integer.highestOneBit(maxFrameLength + SLOT_HEADROOM - 1) << 1);
    }

    /**
     * Asks the kernel for both rings on the socket and maps them.
     *
     * @throws PortException naming the interface, the ring and the sizes when the kernel refuses.
     */
    static PacketRings map(
        final Arena arena,
        final MemorySegment state,
        final int fd,
        final String name,
        final int frameSize,
        final int rxFrames,
        final int txFrames)
    {
        final int blockSize = Math.max(4096, frameSize);
        request(arena, state, fd, name, PACKET_RX_RING, blockSize, frameSize, rxFrames);
        request(arena, state, fd, name, PACKET_TX_RING, blockSize, frameSize, txFrames);
        final long rxBytes = (long)frameSize * rxFrames;
        final long txBytes = (long)frameSize * txFrames;
        final long ringBytes = rxBytes + txBytes;
        final MemorySegment mapped = mmap(state, ringBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd);
        if (mapped.address() == MAP_FAILED)
        {
            throw new PortException("cannot map the packet rings of " + name + " (" + ringBytes + " bytes): " +
                strerror(errno(state)));
        }
        return new PacketRings(mapped, rxBytes, txBytes);
    }

    /** The RX ring's slots. */
    UnsafeBuffer rx()
    {
        return rx;
    }

    /** The TX ring's slots. */
    UnsafeBuffer tx()
    {
        return tx;
    }

    void unmap(final MemorySegment state)
    {
        munmap(state, memory, bytes);
    }

    private static void request(
        final Arena arena,
        final MemorySegment state,
        final int fd,
        final String name,
        final int option,
        final int blockSize,
        final int frameSize,
        final int frames)
    {
        final MemorySegment request = arena.allocate(TPACKET_REQ);
        request.set(ValueLayout.JAVA_INT, 0, blockSize);
        request.set(ValueLayout.JAVA_INT, 4, (int)((long)frameSize * frames / blockSize));
        request.set(ValueLayout.JAVA_INT, 8, frameSize);
        request.set(ValueLayout.JAVA_INT, 12, frames);
        if (setsockopt(state, fd, SOL_PACKET, option, request, (int)TPACKET_REQ.byteSize()) != 0)
        {
            throw new PortException("cannot set up the " + (option == PACKET_RX_RING ? "RX" : "TX") + " ring of " +
                name + " (" + frames + " frames of " + frameSize + " bytes): " + strerror(errno(state)));
        }
    }
}
