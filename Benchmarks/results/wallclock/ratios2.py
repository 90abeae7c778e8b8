import sys, statistics, collections
rows=[l.rstrip('\n').split('\t') for l in open(sys.argv[1])]
base=sys.argv[2]
by=collections.defaultdict(dict); loads=[]
for r,name,ns,fl,fb,load in rows:
    by[int(r)][name]=(float(ns),float(fl),float(fb)); loads.append(float(load.split()[0]))
names=sorted({n for d in by.values() for n in d})
def q(v):
    v=sorted(v); n=len(v); qs=statistics.quantiles(v,n=4)
    return f"median {statistics.median(v):.4f}  IQR {qs[0]:.4f}-{qs[2]:.4f}  (min {v[0]:.4f}, max {v[-1]:.4f}, n={n})"
for n in names:
    print(f"{n}: Graft ns/op {q([d[n][0] for d in by.values() if n in d])}")
    print(f"{n}: Graft/floor(lookup+alloc), per process {q([d[n][0]/d[n][1] for d in by.values() if n in d])}")
    print(f"{n}: Graft/floor(bare alloc), per process {q([d[n][0]/d[n][2] for d in by.values() if n in d])}")
for n in names:
    if n==base: continue
    ks=[r for r,d in by.items() if n in d and base in d]
    print(f"ratio {n}/{base} Graft ns/op, per round: {q([by[k][n][0]/by[k][base][0] for k in ks])}")
    print(f"ratio {n}/{base} of (Graft/lookup+alloc floor), per round: {q([(by[k][n][0]/by[k][n][1])/(by[k][base][0]/by[k][base][1]) for k in ks])}")
print(f"load (1-min avg at each run start): min {min(loads)} median {statistics.median(loads)} max {max(loads)}")
