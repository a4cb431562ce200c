package io.rnic.sim;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class PacketPathWarmUpTest
{
    /**
     * Over IPv4 and IPv6: RC WRITE (64 B, 2500 B, with immediate), READ (64 B, 2500 B), SEND, FETCH_ADD, CMP_SWAP and
     * SEND with immediate; UC and UD SEND with immediate. Each completes successfully on both sides, with no
     * retransmission (run() throws otherwise).
     */
    @Test
    void shouldCompleteEveryKindOfOperationOverBothAddressFamilies()
    {
        assertEquals(2 * (9 + 1 + 1), PacketPathWarmUp.run());
    }
}
