exec(open(__file__.replace("tf32-envelope-tail.py", "tf32-envelope-sim.py")).read().split("which=sys.argv")[0])
import numpy as np
def tail(name,f,x,params,nruns_list=(3,6),k=8.0,rtol=5e-3,atol=1e-4):
    ref=f(x.to(D),[p.to(D) for p in params])
    cand=f(tf32_nearest(x).to(D),[tf32_nearest(p).to(D) for p in params])
    e=(cand-ref).abs()
    g=torch.Generator().manual_seed(7)
    runs_r=[f(tf32_random(x,g).to(D),[tf32_random(p,g).to(D) for p in params]) for _ in range(max(nruns_list))]
    runs_u=[f(tf32_uniform(x,g).to(D),[tf32_uniform(p,g).to(D) for p in params]) for _ in range(max(nruns_list))]
    for lab,runs in (('rand',runs_r),('unif',runs_u)):
      for m in nruns_list:
        env=envelope(ref,runs[:m],k)
        allowed=torch.maximum(atol+rtol*ref.abs(),k*env)
        r=(e/allowed).flatten().numpy()
        q=np.quantile(r,[0.999,0.99999,0.9999999]) if r.size>1e7 else np.quantile(r,[0.999,0.99999])
        print(f"{name} {lab} x{m}: n {r.size} bad {(r>1).sum()} max {r.max():.3f} quantiles {q}")
torch.manual_seed(3)
W,b=init_conv(64,64,4,2,True); bias=torch.randn(64,1,1)
tail('5 large 16.7M',p5,torch.rand(16,64,64,64)*1e3,[W,b,bias])
