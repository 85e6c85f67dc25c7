; the parser and printer keep what they do not interpret: metadata attachments, named metadata, debug records, attribute groups
; RUN: enzyme-py opt %s -p 'verify' | filecheck %s

define double @f(double %x) #0 !dbg !5 {
entry:
  %m = fmul double %x, %x, !dbg !8
    #dbg_value(double %m, !9, !DIExpression(), !8)
  ret double %m, !dbg !8
}

attributes #0 = { nounwind "frame-pointer"="all" }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3, !4}

!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, producer: "clang", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug)
!1 = !DIFile(filename: "f.c", directory: "/src")
!2 = !{}
!3 = !{i32 7, !"Dwarf Version", i32 5}
!4 = !{i32 2, !"Debug Info Version", i32 3}
!5 = distinct !DISubprogram(name: "f", scope: !1, file: !1, line: 1, type: !6, unit: !0)
!6 = !DISubroutineType(types: !2)
!8 = !DILocation(line: 2, column: 10, scope: !5)
!9 = !DILocalVariable(name: "m", scope: !5, file: !1, line: 2, type: !10)
!10 = !DIBasicType(name: "double", size: 64, encoding: DW_ATE_float)

; CHECK: define double @f(double %x) #0 !dbg !5 {
; CHECK-NEXT: entry:
; CHECK-NEXT: %m = fmul double %x, %x, !dbg !8
; CHECK-NEXT: #dbg_value(double %m, !9, !DIExpression(), !8)
; CHECK-NEXT: ret double %m, !dbg !8
; CHECK: attributes #0 = { nounwind "frame-pointer"="all" }
; CHECK: !llvm.dbg.cu = !{!0}
; CHECK: !9 = !DILocalVariable(name: "m", scope: !5, file: !1, line: 2, type: !10)
