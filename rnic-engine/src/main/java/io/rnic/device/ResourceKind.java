package io.rnic.device;

/** The objects a device counts against its limits ({@link DeviceLimits}), with the names ibverbs gives them. */
public enum ResourceKind
{
    QP("QPs", "max_qp", "ibv_create_qp"),
    CQ("CQs", "max_cq", "ibv_create_cq"),
    SRQ("SRQs", "max_srq", "ibv_create_srq"),
    MR("memory regions", "max_mr", "ibv_reg_mr"),
    MW("memory windows", "max_mw", "ibv_alloc_mw");

    private final String plural;
    private final String attribute;
    private final String verb;

    ResourceKind(final String plural, final String attribute, final String verb)
    {
        this.plural = plural;
        this.attribute = attribute;
        this.verb = verb;
    }

    /** What several are called: {@code QPs}, {@code memory regions}. */
    public String plural()
    {
        return plural;
    }

    /** The device attribute that limits them ({@code max_qp}), as {@code ibv_devinfo -v} prints it. */
    public String attribute()
    {
        return attribute;
    }

    /** The verb that makes one ({@code ibv_create_qp}). */
    public String verb()
    {
        return verb;
    }
}
