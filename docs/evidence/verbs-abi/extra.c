#include <stdio.h>
#include <stddef.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#define P(s,f) printf("  %-40s off %4zu size %3zu\n", #s "." #f, offsetof(struct s,f), sizeof(((struct s*)0)->f));
int main(void){
P(ibv_wc,imm_data) P(ibv_wc,invalidated_rkey)
P(ibv_send_wr,imm_data) P(ibv_send_wr,invalidate_rkey)
P(ibv_send_wr,wr.rdma.remote_addr) P(ibv_send_wr,wr.rdma.rkey)
P(ibv_send_wr,wr.atomic.remote_addr) P(ibv_send_wr,wr.atomic.compare_add) P(ibv_send_wr,wr.atomic.swap) P(ibv_send_wr,wr.atomic.rkey)
P(ibv_send_wr,wr.ud.ah) P(ibv_send_wr,wr.ud.remote_qpn) P(ibv_send_wr,wr.ud.remote_qkey)
P(ibv_send_wr,qp_type.xrc.remote_srqn) P(ibv_send_wr,bind_mw.mw) P(ibv_send_wr,bind_mw.rkey) P(ibv_send_wr,bind_mw.bind_info) P(ibv_send_wr,tso.hdr)
P(ibv_async_event,element.cq) P(ibv_async_event,element.qp) P(ibv_async_event,element.srq) P(ibv_async_event,element.port_num)
P(rdma_addr,src_addr) P(rdma_addr,src_sin6) P(rdma_addr,src_storage) P(rdma_addr,dst_addr) P(rdma_addr,dst_storage) P(rdma_addr,addr.ibaddr)
P(rdma_cm_id,route.addr.src_addr) P(rdma_cm_id,route.addr.dst_addr) P(rdma_cm_id,route.addr.addr.ibaddr.sgid) P(rdma_cm_id,route.path_rec) P(rdma_cm_id,route.num_paths)
P(rdma_cm_event,param.conn) P(rdma_cm_event,param.ud)
printf("IBV_ACCESS_OPTIONAL_RANGE=0x%x IBV_ACCESS_RELAXED_ORDERING=0x%x\n", IBV_ACCESS_OPTIONAL_RANGE, IBV_ACCESS_RELAXED_ORDERING);
printf("sizeof(pthread_mutex_t)=%zu sizeof(pthread_cond_t)=%zu\n", sizeof(pthread_mutex_t), sizeof(pthread_cond_t));
return 0;}
