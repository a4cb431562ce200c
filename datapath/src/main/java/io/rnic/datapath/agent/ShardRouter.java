package io.rnic.datapath.agent;

import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

/**
 * Hands RoCEv2 frames to the engine thread that owns their destination QP. Each shard owns the QPNs equal to its
 * index modulo the shard count; a port queue (AF_PACKET fanout, RSS) may deliver a frame to any engine thread, which
 * copies it into the owner's inbox, a many-to-one ring buffer: no lock on either side.
 */
public final class ShardRouter
{
    private static final int MESSAGE_TYPE = 1;

    private final ManyToOneRingBuffer[] inboxes;

    /** @param inboxBytes capacity of each shard's inbox, a power of two. */
    public ShardRouter(final int shards, final int inboxBytes)
    {
        if (shards < 1 || shards > 64)
        {
            throw new IllegalArgumentException("shards " + shards + " out of range 1..64");
        }
        if (Integer.bitCount(inboxBytes) != 1 || inboxBytes < 4096)
        {
            throw new IllegalArgumentException("inbox size " + inboxBytes + " must be a power of two ≥ 4096");
        }
        inboxes = new ManyToOneRingBuffer[shards];
        for (int i = 0; i < shards; i++)
        {
            inboxes[i] = new ManyToOneRingBuffer(new UnsafeBuffer(
                BufferUtil.allocateDirectAligned(inboxBytes + RingBufferDescriptor.TRAILER_LENGTH, 64)));
        }
    }

    public int shards()
    {
        return inboxes.length;
    }

    /** The shard that owns a QPN. */
    public int ownerOf(final int qpn)
    {
        return qpn % inboxes.length;
    }

    /** Copies a frame into a shard's inbox; false when the inbox is full (the caller counts the drop). */
    public boolean handOver(final int shard, final DirectBuffer buffer, final int offset, final int length)
    {
        return inboxes[shard].write(MESSAGE_TYPE, buffer, offset, length);
    }

    ManyToOneRingBuffer inbox(final int shard)
    {
        return inboxes[shard];
    }
}
