package io.rnic.verbs;

/**
 * Transport service of a queue pair (RD is not part of RoCEv2 as deployed, and raw QPs are not on RoCEv2), with the
 * values of {@code enum ibv_qp_type}, which the driver's protocol carries.
 */
public enum QpType
{
    RC(2),
    UC(3),
    UD(4);

    private final int value;

    QpType(final int value)
    {
        this.value = value;
    }

    /** {@code IBV_QPT_*}. */
    public int value()
    {
        return value;
    }

    /** The type of {@code IBV_QPT_*} value {@code value}, or null. */
    public static QpType ofValue(final int value)
    {
        for (final QpType type : values())
        {
            if (type.value == value)
            {
                return type;
            }
        }
        return null;
    }
}
