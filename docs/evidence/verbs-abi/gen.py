import re,sys
# parse struct fields from headers (simple: one field per line ending ';')
hdrs={'verbs':'/usr/include/infiniband/verbs.h','cma':'/usr/include/rdma/rdma_cma.h','sa':'/usr/include/infiniband/sa.h'}
want={'verbs':['ibv_device','ibv_context_ops','ibv_context','verbs_context','ibv_pd','ibv_mr','ibv_mw','ibv_cq','ibv_cq_ex','ibv_qp','ibv_qp_ex','ibv_srq','ibv_ah','ibv_comp_channel','ibv_xrcd','ibv_wc','ibv_sge','ibv_send_wr','ibv_recv_wr','ibv_port_attr','ibv_device_attr','ibv_device_attr_ex','ibv_gid_entry','ibv_async_event','ibv_qp_init_attr','ibv_qp_init_attr_ex','ibv_qp_attr','ibv_qp_cap','ibv_ah_attr','ibv_global_route','ibv_srq_init_attr','ibv_mw_bind','ibv_mw_bind_info'],
      'cma':['rdma_event_channel','rdma_cm_id','rdma_cm_event','rdma_conn_param','rdma_ud_param','rdma_addrinfo','rdma_route','rdma_addr','rdma_ib_addr','rdma_cm_join_mc_attr_ex'],
      'sa':['ibv_sa_path_rec']}
out=['#include <stdio.h>','#include <stddef.h>','#include <infiniband/verbs.h>','#include <rdma/rdma_cma.h>','#include <rdma/rdma_verbs.h>',
     '#define F(s,f) printf("  %-34s off %4zu size %3zu\\n", #f, offsetof(struct s,f), sizeof(((struct s*)0)->f));',
     '#define S(s) printf("struct %s: sizeof %zu align %zu\\n", #s, sizeof(struct s), _Alignof(struct s));','int main(void){']
for h,names in want.items():
    txt=open(hdrs[h]).read()
    txt=re.sub(r'/\*.*?\*/','',txt,flags=re.S)
    for n in names:
        m=re.search(r'^struct '+n+r'\s*\{',txt,re.M)
        if not m: print('missing',n,file=sys.stderr); continue
        i=m.end(); depth=1; j=i
        while depth:
            if txt[j]=='{': depth+=1
            elif txt[j]=='}': depth-=1
            j+=1
        body=txt[i:j-1]
        # flatten nested bodies: take only top-level statements
        fields=[];d=0;cur=''
        for ch in body:
            if ch=='{': d+=1
            if ch=='}': d-=1
            cur+=ch
            if ch==';' and d==0:
                fields.append(cur.strip()); cur=''
        out.append('S(%s)'%n)
        for f in fields:
            f=re.sub(r'\s+',' ',f)
            mm=re.search(r'\(\s*\*\s*(\w+)\s*\)',f)
            if mm: name=mm.group(1)
            else:
                mm=re.search(r'(\w+)\s*(\[[^\]]*\])*\s*;$',f)
                if not mm: continue
                name=mm.group(1)
            if f.startswith('union') and '{' in f or f.startswith('struct {') :
                pass
            out.append('F(%s,%s)'%(n,name))
out.append('return 0;}')
print('\n'.join(out))
