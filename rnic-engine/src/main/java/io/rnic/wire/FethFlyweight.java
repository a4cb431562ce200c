package io.rnic.wire;

import org.agrona.DirectBuffer;

/**
 * FLUSH Extended Transport Header, 4 bytes (IBTA 1.5 Annex A19.4.1): in RC FLUSH, between the BTH and the RETH.
 * The placement type says how far the data must go (bit 0 global visibility, bit 1 persistence, as ibverbs'
 * {@code IBV_FLUSH_GLOBAL} and {@code IBV_FLUSH_PERSISTENT}); the selectivity level says what: 0 the range the RETH
 * gives, 1 the whole memory region its R_Key names (the RETH's address and length are then not looked at). The same
 * bits as rxe's {@code feth_init}.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                    reserved (26 bits)                 |SL |PT |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *                                          SL: bits 5..4, PT: bits 3..0
 * </pre>
 */
public final class FethFlyweight extends HeaderFlyweight
{
    public static final int LENGTH = 4;
    public static final int BITS_OFFSET = 0;
    public static final int PLACEMENT_TYPE_MASK = 0x0F;
    public static final int SELECTIVITY_LEVEL_MASK = 0x30;
    public static final int SELECTIVITY_LEVEL_SHIFT = 4;

    /** Placement type: the data is visible to every reader of the memory (ibverbs {@code IBV_FLUSH_GLOBAL}). */
    public static final int PLACEMENT_GLOBAL = 1;
    /** Placement type: the data is in the persistence domain (ibverbs {@code IBV_FLUSH_PERSISTENT}). */
    public static final int PLACEMENT_PERSISTENT = 2;
    /** Selectivity level: the range the RETH gives (ibverbs {@code IBV_FLUSH_RANGE}). */
    public static final int SELECTIVITY_RANGE = 0;
    /** Selectivity level: the whole memory region (ibverbs {@code IBV_FLUSH_MR}). */
    public static final int SELECTIVITY_MR = 1;

    public FethFlyweight wrapAt(final DirectBuffer buffer, final int offset)
    {
        wrapHeader(buffer, offset, LENGTH);
        return this;
    }

    public int headerLength()
    {
        return LENGTH;
    }

    /** The whole 32 bits, reserved ones included (a validator may look at them). */
    public int bits()
    {
        return getInt(BITS_OFFSET, NETWORK);
    }

    public int placementType()
    {
        return bits() & PLACEMENT_TYPE_MASK;
    }

    public int selectivityLevel()
    {
        return (bits() & SELECTIVITY_LEVEL_MASK) >>> SELECTIVITY_LEVEL_SHIFT;
    }

    /** Writes the header with the reserved bits zero. */
    public FethFlyweight set(final int placementType, final int selectivityLevel)
    {
        putInt(BITS_OFFSET, bits(placementType, selectivityLevel), NETWORK);
        return this;
    }

    public static int bits(final int placementType, final int selectivityLevel)
    {
        return ((selectivityLevel << SELECTIVITY_LEVEL_SHIFT) & SELECTIVITY_LEVEL_MASK) |
            (placementType & PLACEMENT_TYPE_MASK);
    }

    /** Whether a placement type is one IBTA 1.5 defines: global visibility, persistence or both, never none. */
    public static boolean isValidPlacementType(final int placementType)
    {
        return placementType != 0 && (placementType & ~(PLACEMENT_GLOBAL | PLACEMENT_PERSISTENT)) == 0;
    }

    public static boolean isValidSelectivityLevel(final int selectivityLevel)
    {
        return selectivityLevel == SELECTIVITY_RANGE || selectivityLevel == SELECTIVITY_MR;
    }
}
