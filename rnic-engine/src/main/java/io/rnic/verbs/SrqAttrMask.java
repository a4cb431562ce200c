package io.rnic.verbs;

/** Which attributes {@code modify} of a {@link SharedReceiveQueue} sets: {@code enum ibv_srq_attr_mask}, same values. */
public final class SrqAttrMask
{
    /** Resize the SRQ ({@code IBV_SRQ_MAX_WR}): refused, as by a device without {@code IBV_DEVICE_SRQ_RESIZE}. */
    public static final int MAX_WR = 1;
    /** Arm the limit event at {@link SrqAttributes#srqLimit} ({@code IBV_SRQ_LIMIT}); 0 disarms it. */
    public static final int LIMIT = 1 << 1;

    private SrqAttrMask()
    {
    }
}
