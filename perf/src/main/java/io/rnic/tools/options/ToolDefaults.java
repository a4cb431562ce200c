package io.rnic.tools.options;

/**
 * The defaults and bounds the option table states for the tools and that the tools apply: here, below both, so that
 * the table names them without depending on the tools that parse with it (the tools' own constants are these).
 */
public final class ToolDefaults
{
    /** perftest's TCP exchange port. */
    public static final int PERFTEST_TCP_PORT = 18515;
    /** Where {@code --out_json} writes without a file name (perftest's). */
    public static final String PERFTEST_OUT_JSON = "perftest_out.json";
    /** {@code -D}'s period with {@code --run_infinitely}. */
    public static final int RUN_INFINITELY_PERIOD_S = 5;
    /** perftest 4.5's most inline bytes ({@code -I}). */
    public static final int PERFTEST_MAX_INLINE = 1024;
    /** perftest 4.5's largest {@code -Q}. */
    public static final int PERFTEST_MAX_CQ_MOD = 1024;
    /** mw-peer's TCP port, beside perftest's. */
    public static final int MW_PEER_PORT = 18516;
    /** rping's RDMA CM port (rdma-core's rping). */
    public static final int RPING_PORT = 7174;
    /** rping's ping size, and its bounds (its header is 26 bytes). */
    public static final int RPING_SIZE = 64;
    public static final int RPING_MIN_SIZE = 26;
    public static final int RPING_MAX_SIZE = 64 * 1024;
    /** dpdk-pingpong's frame: a 64-byte RDMA WRITE's, and the Ethernet bounds. */
    public static final int DPDK_PINGPONG_FRAME_BYTES = 138;
    public static final int DPDK_PINGPONG_FRAME_BYTES_MIN = 60;
    public static final int DPDK_PINGPONG_FRAME_BYTES_MAX = 1514;

    private ToolDefaults()
    {
    }
}
