import sys, statistics, collections
rows=[l.rstrip('\n').split('\t') for l in open(sys.argv[1])]
base=sys.argv[2]
by=collections.defaultdict(dict); loads=[]
for r,name,ns,load in rows:
    by[int(r)][name]=float(ns); loads.append(float(load.split()[0]))
names=sorted({n for d in by.values() for n in d})
def q(v):
    v=sorted(v); n=len(v)
    qs=statistics.quantiles(v,n=4) if n>=4 else [v[0],statistics.median(v),v[-1]]
    return f"median {statistics.median(v):.4f}  IQR {qs[0]:.4f}-{qs[2]:.4f}  min {v[0]:.4f} max {v[-1]:.4f}  n={n}"
for n in names:
    print(f"{n}: ns/op {q([d[n] for d in by.values() if n in d])}")
for n in names:
    if n==base: continue
    rat=[d[n]/d[base] for d in by.values() if n in d and base in d]
    print(f"ratio {n}/{base}: {q(rat)}")
print(f"load (1-min) during rounds: min {min(loads)} median {statistics.median(loads)} max {max(loads)}")
