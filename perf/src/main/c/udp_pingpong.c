/*
 * What a user would use instead of RDMA: a ping-pong of kernel UDP datagrams (IPv4), busy-polling a non-blocking
 * socket. The client times each round trip.
 *
 *   udp_pingpong -s [-p PORT]                      server: echoes every datagram
 *   udp_pingpong -c SERVER_IP [-p PORT] [-n ITERS] [-w WARMUP] [-l SIZE] [-C CPU]
 */
#include "pingpong_common.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#define TIMEOUT_NS 5000000000ull

static ssize_t receive(int fd, unsigned char *buffer, size_t capacity, struct sockaddr_in *from)
{
    const uint64_t deadline = now_ns() + TIMEOUT_NS;
    for (;;) {
        socklen_t length = sizeof(*from);
        const ssize_t n = recvfrom(fd, buffer, capacity, MSG_DONTWAIT, (struct sockaddr *)from, &length);
        if (n >= 0)
            return n;
        if (errno != EAGAIN && errno != EWOULDBLOCK) {
            perror("udp_pingpong: recvfrom");
            exit(2);
        }
        if (now_ns() > deadline)
            return -1;
    }
}

int main(int argc, char **argv)
{
    const char *server_ip = NULL;
    int server = 0, cpu = -1, port = 18600, opt;
    size_t iterations = 100000, warmup = 10000, size = 64;
    while ((opt = getopt(argc, argv, "sc:p:n:w:l:C:")) != -1) {
        switch (opt) {
        case 's': server = 1; break;
        case 'c': server_ip = optarg; break;
        case 'p': port = atoi(optarg); break;
        case 'n': iterations = strtoul(optarg, NULL, 10); break;
        case 'w': warmup = strtoul(optarg, NULL, 10); break;
        case 'l': size = strtoul(optarg, NULL, 10); break;
        case 'C': cpu = atoi(optarg); break;
        default:
            fprintf(stderr, "usage: udp_pingpong (-s | -c SERVER_IP) [-p PORT] [-n N] [-w N] [-l SIZE] [-C CPU]\n");
            return 2;
        }
    }
    if (server == (server_ip != NULL) || size < 1 || size > 65000 || iterations == 0) {
        fprintf(stderr, "usage: udp_pingpong (-s | -c SERVER_IP) [-p PORT] [-n N] [-w N] [-l SIZE] [-C CPU]\n");
        return 2;
    }
    pin(cpu);
    const int fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0) {
        perror("udp_pingpong: socket");
        return 2;
    }
    unsigned char buffer[65536];
    struct sockaddr_in peer = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    if (server) {
        peer.sin_addr.s_addr = htonl(INADDR_ANY);
        if (bind(fd, (struct sockaddr *)&peer, sizeof(peer)) != 0) {
            perror("udp_pingpong: bind");
            return 2;
        }
        for (;;) {
            struct sockaddr_in from;
            const ssize_t n = receive(fd, buffer, sizeof(buffer), &from);
            if (n < 0)
                continue;
            sendto(fd, buffer, (size_t)n, 0, (struct sockaddr *)&from, sizeof(from));
        }
    }
    if (inet_pton(AF_INET, server_ip, &peer.sin_addr) != 1) {
        fprintf(stderr, "udp_pingpong: '%s' is not an IPv4 address\n", server_ip);
        return 2;
    }
    memset(buffer, 0xab, size);
    uint64_t *rtt = calloc(iterations, sizeof(uint64_t));
    for (size_t i = 0; i < warmup + iterations; i++) {
        const uint64_t start = now_ns();
        if (sendto(fd, buffer, size, 0, (struct sockaddr *)&peer, sizeof(peer)) != (ssize_t)size) {
            perror("udp_pingpong: sendto");
            return 2;
        }
        struct sockaddr_in from;
        if (receive(fd, buffer, sizeof(buffer), &from) < 0) {
            fprintf(stderr, "udp_pingpong: no reply to datagram %zu within 5 s (is the server running?)\n", i);
            return 1;
        }
        if (i >= warmup)
            rtt[i - warmup] = now_ns() - start;
    }
    report("kernel-udp", size, rtt, iterations);
    return 0;
}
