import glob, re, statistics, sys
title = sys.argv[1]
def q(v):
    v=sorted(v)
    def at(f):
        p=f*(len(v)-1); l=int(p); u=min(l+1,len(v)-1); return v[l]+(v[u]-v[l])*(p-l)
    return at(.25), at(.5), at(.75)
data={}; busy=[]
for f in sorted(glob.glob('run-*.txt')):
    pair, v = re.match(r'run-(\d+)-(\w+)', f).groups()
    shape=None
    for line in open(f):
        if line.startswith('## '): shape=line[3:].strip()
        if line.startswith('busy\t'): busy.append(float(line.split('\t')[1].split()[0]))
        if re.match(r'\d+\t', line):
            x=line.split('\t'); data.setdefault((v,shape),[]).append((int(pair), float(x[2]), float(x[3]), float(x[7]), float(x[8])))
print(title)
print(f"cores busy during each run's rounds (its own included, of 2): {min(busy):.2f} to {max(busy):.2f}")
for (v,shape), rows in sorted(data.items()):
    a,b,c = q([r[1]/r[2] for r in rows]); ca,cb,cc = q([r[3]/r[4] for r in rows])
    print(f"{v}, {shape}: Swinject / Graft median {b:.2f}x (IQR {a:.2f} to {c:.2f}, {len(rows)} rounds); Graft {statistics.median(r[2] for r in rows):.1f} ns/reg (CPU {statistics.median(r[4] for r in rows):.1f}), Swinject {statistics.median(r[1] for r in rows):.1f} ns/reg (CPU {statistics.median(r[3] for r in rows):.1f}); CPU-time ratio {cb:.2f}x (IQR {ca:.2f} to {cc:.2f})")
