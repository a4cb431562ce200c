package io.rnic.tools;

import java.io.IOException;
import java.util.function.Consumer;

/**
 * The TCP conversation beside the RDMA traffic, as the real tools have it: exchange each QP's number, first PSN,
 * R_Key, buffer address and GID, then meet at barriers (both sides ready before the first packet; the client done
 * before the server tears down or checks its memory).
 */
interface OutOfBand extends AutoCloseable
{
    /**
     * Sends ours and returns the peer's, QP by QP. {@code connect} brings our QPs to RTS with the peer's values; it
     * runs before the server answers (so a client may send as soon as it has the answer, as with rdma-core's
     * pingpongs) and on the client before it tells the server it is ready.
     */
    RemoteQp[] exchange(LocalQp[] local, long gidHigh, long gidLow, Consumer<RemoteQp[]> connect)
        throws IOException;

    /** Returns once the peer reached its own call to {@code sync}. */
    void sync() throws IOException;

    @Override
    void close();
}
