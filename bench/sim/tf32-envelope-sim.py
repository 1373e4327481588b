# Simulation of the oracle's TF32 error envelope on KernelBench level 2 shapes (session 13,
# docs/design.md): f64 torch on CPU; "cand" is an honest TF32 computation (both operands rounded
# to nearest TF32), the schemes are the envelope runs. Run with the kjudge venv's python3.
import torch, math, sys
torch.manual_seed(0)
D=torch.float64
def tf32_nearest(t):
    b=t.to(torch.float32).view(torch.int32).to(torch.int64) & 0xffffffff
    b=(b+0xfff+((b>>13)&1)) & ~0x1fff
    return torch.tensor(b.numpy().astype('uint32').view('float32'))
def tf32_random(t,g):
    # each element to one of its two neighbouring TF32 values, direction random
    f=t.to(torch.float32)
    b=torch.tensor(f.numpy().view('uint32').astype('int64'))
    lo=b & ~0x1fff
    exact=(b & 0x1fff)==0
    up=torch.randint(0,2,b.shape,generator=g).bool()
    nb=torch.where(exact|~up, lo, lo+0x2000)
    return torch.tensor(nb.numpy().astype('uint32').view('float32'))
def tf32_uniform(t,g):
    # an independent draw of TF32's rounding error: x + u * ulp_tf32(x), u uniform in [-1/2, 1/2)
    f=t.to(torch.float32)
    ulp=torch.ldexp(torch.ones_like(f), torch.frexp(f).exponent-11)  # TF32 ulp: 2^(e-1-10)
    u=torch.rand(f.shape,generator=g)-0.5
    return (f.to(D)+u.to(D)*ulp.to(D)).to(torch.float32)
def envelope(ref, runs, k=8.0):
    rl=ref.shape[-1]; r=ref.reshape(-1,rl)
    err=torch.zeros(r.shape[0],dtype=D)
    for x in runs: err=torch.maximum(err,(x.reshape(-1,rl).to(D)-r).abs().amax(1))
    scale=r.abs().amax(1)
    rel=(err/scale)[scale>0]
    typ=rel.sort().values[(rel.numel()-1)//2] if rel.numel()>=2 else 0
    per=torch.maximum(err,typ*scale)
    return per[:,None].expand(-1,rl).reshape(ref.shape)
def judge(name, f, x, params, rtol=5e-3, atol=1e-4, k=8.0, seeds=3):
    ref=f(x.to(D),[p.to(D) for p in params])
    cands={'tf32':f(tf32_nearest(x).to(D),[tf32_nearest(p).to(D) for p in params]),
           'bf16':f(x.to(torch.bfloat16).to(D),[p.to(torch.bfloat16).to(D) for p in params]),
           'f16':f(x.to(torch.float16).to(D),[p.to(torch.float16).to(D) for p in params])}
    g=torch.Generator().manual_seed(1)
    schemes={
     'cur: nearest x':[f(tf32_nearest(x).to(D),[p.to(D) for p in params])],
     'unif x,W *3':[f(tf32_uniform(x,g).to(D),[tf32_uniform(p,g).to(D) for p in params]) for _ in range(3)],
     'unif x *3':[f(tf32_uniform(x,g).to(D),[p.to(D) for p in params]) for _ in range(3)],
     'rand x,W *3':[f(tf32_random(x,g).to(D),[tf32_random(p,g).to(D) for p in params]) for _ in range(3)],
    }
    for s,runs in schemes.items():
        env=envelope(ref,runs,k)
        allowed=torch.maximum(atol+rtol*ref.abs(),k*env)
        for cn,cand in cands.items():
          e=(cand-ref).abs()
          bad=(e>allowed).sum().item()
          nr=((cand-ref).norm()/ref.norm()).item()
          print(f"{name:12s} {s:16s} {cn:5s} bad {bad:8d} of {ref.numel():9d}  worst ratio {(e/allowed).max().item():9.3f} normrel {nr:.2e}")
import torch.nn.functional as F
def p13(x,ps):
    W,b,bias=ps
    y=F.conv_transpose3d(x,W,b,stride=1,padding=1)
    y=y.mean(2,keepdim=True)+bias
    return torch.tanh(torch.softmax(y,1))*2
def p5(x,ps):
    W,b,bias=ps
    return torch.tanh(F.conv_transpose2d(x,W,b,stride=2,padding=1,output_padding=1)-bias)
def p14(x,ps):
    (W,)=ps
    return ((x@W.T)/2).sum(1,keepdim=True)*1.5
def p1(x,ps):
    W,b,bias=ps
    return torch.relu(F.conv2d(x,W,b))+bias
def init_conv(cin,cout,k,dims,transposed):
    fan=(cout if transposed else cin)*k**dims
    bd=1/math.sqrt(fan)
    shape=(cin,cout)+(k,)*dims if transposed else (cout,cin)+(k,)*dims
    return (torch.rand(shape)*2-1)*bd, (torch.rand(cout)*2-1)*bd
which=sys.argv[1:] or ['13','5','14','1']
for dist in ['uniform','large','normal']:
  def gen(shape):
    if dist=='uniform': return torch.rand(shape)
    if dist=='large': return torch.rand(shape)*1e3
    return torch.randn(shape)
  if '13' in which:
    W,b=init_conv(16,64,3,3,True); bias=torch.randn(1,64,1,1,1)
    judge('13 '+dist,p13,gen((2,16,8,32,32)),[W,b,bias])
  if '5' in which:
    W,b=init_conv(64,64,4,2,True); bias=torch.randn(64,1,1)
    judge('5 '+dist,p5,gen((2,64,48,48)),[W,b,bias])
  if '14' in which:
    judge('14 '+dist,p14,gen((256,2048)),[torch.randn(2048,2048)])
  if '1' in which:
    W,b=init_conv(64,128,3,2,False); bias=torch.randn(128,1,1)
    judge('1 '+dist,p1,gen((2,64,48,48)),[W,b,bias])
