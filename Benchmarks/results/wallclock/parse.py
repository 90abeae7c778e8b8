import os, sys, re, collections
d=sys.argv[1]
runs=[l.rstrip('\n').split('\t')[1:] for l in open(f"{d}/gate.txt") if l.startswith("gate\t")]
name,ops,sets=runs[0]; ops=int(ops); sets=int(sets)
dumps=sorted((x for x in os.listdir(d) if x.rsplit('.',1)[-1].isdigit()), key=lambda x:int(x.rsplit('.',1)[-1]))
def totals(f):
    ev=None
    for line in open(f"{d}/{f}"):
        if line.startswith("events:"): ev=line.split()[1:]
        if line.startswith("totals:") or line.startswith("summary:"):
            return dict(zip(ev,map(int,line.split()[1:])))
def calls(f):
    names={}; c=collections.Counter(); cur=None
    for line in open(f"{d}/{f}"):
        if line.startswith("cfn="):
            m=re.match(r"cfn=\((\d+)\)(?: (.*))?",line.rstrip('\n'))
            if m.group(2): names[m.group(1)]=m.group(2)
            cur=names.get(m.group(1),m.group(1))
        elif line.startswith("fn="):
            m=re.match(r"fn=\((\d+)\)(?: (.*))?",line.rstrip('\n'))
            if m and m.group(2): names[m.group(1)]=m.group(2)
        elif line.startswith("calls=") and cur:
            c[cur]+=int(line.split('=')[1].split()[0]); cur=None
    return c
rows=[]
pos=1
for s in range(sets):
    a,b=totals(dumps[pos]),totals(dumps[pos+1])
    rows.append((s,{k:(b[k]-a[k])/ops for k in a}, dumps[pos], dumps[pos+1]))
    pos+=2
keys=list(rows[0][1].keys())
print("set\t"+"\t".join(keys))
for s,v,_,_ in rows: print(f"{s}\t"+"\t".join(f"{v[k]:.2f}" for k in keys))
mn=min(rows,key=lambda r:r[1]['Ir'])
print(f"# min Ir set: {mn[0]} Ir={mn[1]['Ir']:.1f}; set0 Ir={rows[0][1]['Ir']:.1f}")
for label,(s,v,fa,fb) in (("set0",rows[0]),("minset",mn)):
    ca,cb=calls(fa),calls(fb)
    diff={k:(cb[k]-ca.get(k,0))/ops for k in cb}
    tot=sum(diff.values())
    print(f"## calls per op ({label}, set {s}): total {tot:.2f}")
    for k,v2 in sorted(diff.items(), key=lambda x:-x[1]):
        if v2>=0.5: print(f"  {v2:8.2f}  {k}")
