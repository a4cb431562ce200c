package io.rnic.cnc.command;

import org.agrona.MutableDirectBuffer;

/**
 * The start of every command and every answer between clients and the driver ({@code struct rnic_msg_header}): the
 * client's id and the command's correlation id. On its own it is the whole message of the commands that carry nothing
 * else ({@code KEEPALIVE}, {@code DETACH}, {@code ALLOC_PD}) and of the answer
 * {@code OPERATION_SUCCEEDED}. As Aeron's flyweights: wrap a buffer, read and write fields in place, allocate nothing.
 */
public class CorrelatedMessageFlyweight
{
    /** int64: a random number the client chose before attaching. */
    public static final int CLIENT_ID_OFFSET = 0;
    /** int64: the client's own, fresh per command (keepalives carry 0); an answer carries its command's. */
    public static final int CORRELATION_ID_OFFSET = 8;
    /** Bytes of the header, and of a message that carries nothing else. */
    public static final int LENGTH = 16;

    protected MutableDirectBuffer buffer;
    protected int offset;

    public CorrelatedMessageFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    public MutableDirectBuffer buffer()
    {
        return buffer;
    }

    public int offset()
    {
        return offset;
    }

    public long clientId()
    {
        return buffer.getLong(offset + CLIENT_ID_OFFSET);
    }

    public long correlationId()
    {
        return buffer.getLong(offset + CORRELATION_ID_OFFSET);
    }

    /** Writes the header. */
    public void header(final long clientId, final long correlationId)
    {
        buffer.putLong(offset + CLIENT_ID_OFFSET, clientId);
        buffer.putLong(offset + CORRELATION_ID_OFFSET, correlationId);
    }
}
